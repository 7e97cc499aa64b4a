export type { CalendarInterval, SqlDialect } from './dialect.js';
export type {
  PinnedRow,
  SqlCapabilities,
  SqlColumn,
  SqlColumnType,
  SqlIndex,
  SqlTable,
  SqlValueClass,
} from './model.js';
export type {
  AggregateFunction,
  AggregatePlan,
  OutputColumn,
  SqlParameter,
  SqlReadRequest,
  SqlRequest,
  SqlStatement,
  SqlWriteRequest,
} from './native.js';
export type {
  SqlColumnFacts,
  SqlConnection,
  SqlElementType,
  SqlField,
  SqlFieldType,
  SqlSchema,
  SqlTarget,
} from './kind/spec.js';
export {
  isSqlFieldType,
  primaryKeyOf,
  SQL_FIELD_TYPES,
  sqlFieldFamily,
  sqlTableModel,
  sqlTraits,
} from './kind/model.js';
export { sqlKind, sqlOperations } from './kind/kind.js';
export type { SqlKindOptions } from './kind/kind.js';
export { lazySqlDriver, poolKeyOf, sqlConnector } from './connector.js';
export type { SqlDriver, SqlExecuteOptions, SqlRuntime } from './connector.js';
export { compileSql, DEFAULT_TIMEOUT_MS } from './compile/compile.js';
export type { SqlCompileContext, SqlPermissions } from './compile/context.js';
export { escapeLike, LIKE_ESCAPE } from './compile/filters.js';
export { filterOpsForColumn } from './compile/operators.js';
export type { SqlFilterOp } from './compile/operators.js';
export { COUNT_CAP } from './compile/read.js';
export { checkValue, integerAsString, integerBounds, normalizeDatetime } from './compile/values.js';
export { Violations } from '@tollgate/core';
export { decodeDatetime, decodeValue } from './shape/decode.js';
export { shapeSqlResult } from './shape/shape.js';
export type { SqlResult, SqlShapeContext } from './shape/shape.js';
export { catalogTable, columnCosts, parseEnumValues, typeWarnings } from './discovery/catalog.js';
export type {
  CatalogColumn,
  CatalogTable,
  CatalogWarning,
  ColumnCost,
} from './discovery/catalog.js';
export {
  columnFacts,
  suggestedCapabilities,
  supportedCapabilities,
  toDiscoveredSchema,
} from './discovery/schema.js';
export { NETWORK_ERROR_CODES } from './execute/attempts.js';
export { runSqlRequest, withDiscoverySession } from './execute/run.js';
export { writeRow } from './execute/write.js';
export type { SqlWritten } from './execute/write.js';
export type { SqlExecution, SqlRunner } from './execute/run.js';
export type { SqlFailure } from './execute/attempts.js';
export { PoolCache } from './execute/pools.js';
export type { Closable } from './execute/pools.js';
export { resolveSqlCredential, sqlLogin } from './execute/login.js';
export type { SqlLogin } from './execute/login.js';
export { columnTypeOf, sqlCompileContext, sqlSpec, tableOf } from './resource.js';
export type { SqlResourceSpec } from './resource.js';
