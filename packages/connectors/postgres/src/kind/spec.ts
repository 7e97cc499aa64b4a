/**
 * The `spec` of a postgres resource. These types are the source of truth for the kind's
 * published schema (`schema/spec.schema.json`, generated with `pnpm gen:schema`).
 */
import type { AccessSpec } from '@tollgate/core';
import type { SqlConnection, SqlSchema, SqlTarget } from '@tollgate/connector-sql';

/** A PostgreSQL table or view (`schema.table`, schema `public` when not given). */
export interface PostgresSpec {
  /** The resource kind. */
  type: 'postgres';
  connection: SqlConnection;
  target: SqlTarget;
  /** Merged with what discovery reads from pg_catalog; the catalog wins on types. */
  schema: SqlSchema;
  access: AccessSpec;
}
