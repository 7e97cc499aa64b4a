export { elasticsearchConnector } from './connector.js';
export { elasticsearchKind, elasticsearchSpecSchema } from './kind/kind.js';
export { elasticsearchModel } from './kind/model.js';
export type {
  ElasticsearchConnection,
  ElasticsearchField,
  ElasticsearchFieldType,
  ElasticsearchSchema,
  ElasticsearchSpec,
  ElasticsearchTarget,
} from './kind/spec.js';
export { closeClients } from './client.js';
export { compileRequest } from './compile/compile.js';
export { discoverMapping, discoverSchema } from './discovery/discover.js';
export {
  DEFAULT_DATE_FORMAT,
  readMappingFields,
  readMappings,
  toDiscoveredSchema,
} from './discovery/mapping.js';
export type { MappedIndex, MappedSchema } from './discovery/mapping.js';
export type { MappedField } from './discovery/capabilities.js';
export { executeRequest } from './execute/execute.js';
export { shapeResult } from './shape/shape.js';
export type { AggregationData, Bucket } from './shape/aggregation.js';
export type {
  EsAggregation,
  EsBoolQuery,
  EsClause,
  EsCountRequest,
  EsRange,
  EsRequest,
  EsSearchBody,
  EsSearchRequest,
  EsSortClause,
  EsWriteRequest,
} from './native.js';
