/**
 * What a principal may do on one resource version: the projection input for tool synthesis
 * and the contract the executor enforces. Produced by the policy engine (or, without one,
 * derived from the resource's `access` block).
 */
export type Operation = 'search' | 'get' | 'count' | 'aggregate' | 'write';

export interface PermissionSet {
  operations: Operation[];
  /** Fields the principal may see in results (sorted). */
  visibleFields: string[];
  /** Fields the principal may filter on (sorted). */
  filterableFields: string[];
  /** Upper bound for `limit`. */
  limitCap: number;
}

/** The operators a filter may use; which ones a field gets depends on its type and capabilities. */
export type FilterOp = 'eq' | 'in' | 'exists' | 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'match';

export type FilterValue = string | number | boolean | Array<string | number> | null;

export interface Filter {
  field: string;
  op: FilterOp;
  value?: FilterValue;
}

export interface SortSpec {
  field: string;
  order: 'asc' | 'desc';
}

/** Arguments of `<name>_search`, as the synthesized schema admits them. */
export interface SearchArgs {
  filters?: Filter[] | null;
  fields?: string[] | null;
  sort?: SortSpec[] | null;
  limit?: number | null;
  cursor?: string | null;
}

export interface GetArgs {
  id: string;
  fields?: string[] | null;
}

export interface CountArgs {
  filters?: Filter[] | null;
}

export type AggregationKind = 'terms' | 'date_histogram' | 'stats' | 'cardinality';

export interface AggregateArgs {
  filters?: Filter[] | null;
  aggregation: {
    kind: AggregationKind;
    field: string;
    /** terms: bucket count (capped); date_histogram: calendar interval. */
    size?: number | null;
    interval?: 'hour' | 'day' | 'week' | 'month' | 'year' | null;
  };
}

export interface WriteArgs {
  id: string;
  document: Record<string, unknown>;
}
