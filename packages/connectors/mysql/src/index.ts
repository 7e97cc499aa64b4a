export { mysqlConnector } from './connector.js';
export { MYSQL_PORT, mysqlKind, mysqlSpecSchema } from './kind/kind.js';
export type { MysqlSpec } from './kind/spec.js';
export { mysqlDialect } from './dialect.js';
export { mysqlColumnType } from './discovery/types.js';
export type { MysqlCatalogType } from './discovery/types.js';
export { classifyMysqlFailure } from './execute/failure.js';
