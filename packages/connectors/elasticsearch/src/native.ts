/**
 * The Elasticsearch requests the compiler produces: plain JSON the executor sends as is. Only
 * the query clauses listed here are ever generated; nothing from the model is parsed as DSL.
 */

/** A query clause the compiler may emit. */
export type EsClause =
  | { term: Record<string, { value: string | number | boolean }> }
  | { terms: Record<string, Array<string | number>> }
  | { range: Record<string, EsRange> }
  | { exists: { field: string } }
  | { match: Record<string, { query: string }> }
  | { ids: { values: string[] } };

export interface EsRange {
  gt?: string | number;
  gte?: string | number;
  lt?: string | number;
  lte?: string | number;
  /** Set for dates: values are ISO-8601 whatever the field's mapped format. */
  format?: string;
}

export interface EsBoolQuery {
  bool: { filter: EsClause[]; must?: EsClause[] };
}

export type EsSortClause = Record<string, { order: 'asc' | 'desc'; unmapped_type?: string }>;

/** The aggregation every aggregate request computes, under the name `result`. */
export type EsAggregation =
  | { terms: { field: string; size: number } }
  | { date_histogram: { field: string; calendar_interval: string; min_doc_count: 1 } }
  | { stats: { field: string } }
  | { cardinality: { field: string } };

export interface EsSearchBody {
  query: EsBoolQuery;
  _source: { includes: string[] } | false;
  size: number;
  sort?: EsSortClause[];
  search_after?: Array<string | number | boolean | null>;
  track_total_hits: number | boolean;
  aggs?: { result: EsAggregation };
}

export interface EsSearchRequest {
  api: 'search';
  index: string;
  body: EsSearchBody;
}

export interface EsCountRequest {
  api: 'count';
  index: string;
  body: { query: EsBoolQuery };
}

/**
 * A partial document update by id (fields not sent are kept). With `guard`, the document must
 * either not exist (it is created) or already hold `guard.value` in `guard.field` (it is updated
 * with optimistic concurrency); anything else is refused.
 */
export interface EsWriteRequest {
  api: 'write';
  index: string;
  id: string;
  document: Record<string, unknown>;
  refresh: 'wait_for';
  guard: { field: string; value: string } | null;
}

export type EsRequest = EsSearchRequest | EsCountRequest | EsWriteRequest;
