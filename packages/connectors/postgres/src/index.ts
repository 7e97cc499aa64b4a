export { postgresConnector } from './connector.js';
export { POSTGRES_PORT, postgresKind, postgresSpecSchema } from './kind/kind.js';
export type { PostgresSpec } from './kind/spec.js';
export { postgresDialect } from './dialect.js';
export { pgColumnType } from './discovery/types.js';
export type { PgCatalogType } from './discovery/types.js';
export { classifyPgFailure } from './execute/failure.js';
