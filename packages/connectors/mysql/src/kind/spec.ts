/**
 * The `spec` of a mysql resource. These types are the source of truth for the kind's
 * published schema (`schema/spec.schema.json`, generated with `pnpm gen:schema`).
 */
import type { AccessSpec } from '@tollgate/core';
import type { SqlConnection, SqlSchema, SqlTarget } from '@tollgate/connector-sql';

/**
 * A MySQL or MariaDB table or view (`database.table`; the connection's database when
 * `target.schema` is not given).
 */
export interface MysqlSpec {
  /** The resource kind. */
  type: 'mysql';
  connection: SqlConnection;
  target: SqlTarget;
  /** Merged with what discovery reads from information_schema; the catalog wins on types. */
  schema: SqlSchema;
  access: AccessSpec;
}
