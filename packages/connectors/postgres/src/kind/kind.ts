/**
 * The pure half of the postgres kind: what can be declared, the operations and tools a table
 * or view offers (the SQL core's, under this kind's name and schema).
 */
import { createRequire } from 'node:module';
import type { JsonSchema, ResourceKind } from '@tollgate/core';
import { sqlKind } from '@tollgate/connector-sql';

const require = createRequire(import.meta.url);

/** The published schema of a postgres resource's `spec` (generated from spec.ts). */
export const postgresSpecSchema = require('../../schema/spec.schema.json') as JsonSchema;

export const POSTGRES_PORT = 5432;

export const postgresKind: ResourceKind = sqlKind({
  type: 'postgres',
  title: 'PostgreSQL table',
  specSchema: postgresSpecSchema,
  scheme: 'postgres',
  defaultPort: POSTGRES_PORT,
  defaultSchema: 'public',
  mention: { about: /\b(?:postgres(?:ql)?|pg)\b/i, namePrefix: 'pg' },
});
