export { elasticsearchConnector } from './connector.js';
export { closeClients } from './client.js';
export { compileRequest, elasticsearchOperations } from './compile/compile.js';
export { discoverSchema } from './discovery/discover.js';
export { DEFAULT_DATE_FORMAT, readMappings } from './discovery/mapping.js';
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
