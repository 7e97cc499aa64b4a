export { CALENDAR_INTERVALS } from './dialect.js';
export type { CalendarInterval, SqlDialect } from './dialect.js';
export { SQL_VALUE_CLASSES } from './model.js';
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
export { poolKeyOf, sqlConnector } from './connector.js';
export type { SqlDriver, SqlExecuteOptions } from './connector.js';
export { compileSql, DEFAULT_TIMEOUT_MS } from './compile/compile.js';
export type { SqlCompileContext, SqlPermissions } from './compile/context.js';
export { escapeLike, LIKE_ESCAPE, MAX_FILTERS, MAX_IN_VALUES } from './compile/filters.js';
export { filterOpsForColumn, SQL_FILTER_OPS } from './compile/operators.js';
export type { SqlFilterOp } from './compile/operators.js';
export { COUNT_CAP } from './compile/read.js';
export { MAX_BUCKETS } from './compile/aggregate.js';
export { checkValue, integerAsString, integerBounds, normalizeDatetime } from './compile/values.js';
export { Violations } from '@tollgate/core';
export { decodeDatetime, decodeValue } from './shape/decode.js';
export { shapeSqlResult } from './shape/shape.js';
export type { SqlResult, SqlShapeContext } from './shape/shape.js';
export { columnCosts, parseEnumValues } from './discovery/catalog.js';
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
export { withAttempts } from './execute/attempts.js';
export type { AttemptPolicy, SqlFailure } from './execute/attempts.js';
export { PoolCache } from './execute/pools.js';
export type { Closable } from './execute/pools.js';
export { resolveSqlCredential, sqlLogin } from './execute/login.js';
export type { SqlLogin } from './execute/login.js';
export { columnTypeOf, sqlCompileContext, sqlSpec, tableOf } from './resource.js';
export type { SqlResourceSpec } from './resource.js';
