/**
 * The pure half of the mysql kind: what can be declared, the operations and tools a table or
 * view offers (the SQL core's, under this kind's name and schema).
 */
import { createRequire } from 'node:module';
import type { JsonSchema, ResourceKind } from '@tollgate/core';
import { sqlKind } from '@tollgate/connector-sql';

const require = createRequire(import.meta.url);

/** The published schema of a mysql resource's `spec` (generated from spec.ts). */
export const mysqlSpecSchema = require('../../schema/spec.schema.json') as JsonSchema;

export const MYSQL_PORT = 3306;

export const mysqlKind: ResourceKind = sqlKind({
  type: 'mysql',
  title: 'MySQL or MariaDB table',
  specSchema: mysqlSpecSchema,
  scheme: 'mysql',
  defaultPort: MYSQL_PORT,
  mention: { about: /\b(?:mysql|mariadb)\b/i, namePrefix: 'mysql' },
});
