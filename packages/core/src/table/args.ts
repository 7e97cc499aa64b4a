/**
 * Arguments of the table family's tools, as their synthesized schemas admit them. Optional
 * arguments are nullable as well as omittable (OpenAI strict mode sends every key, `null` for
 * "not given"); validated arguments reach the compiler with every `null` removed.
 */

/** The operators a filter may use; which ones a field gets depends on its traits and capabilities. */
export type FilterOp =
  | 'eq'
  | 'in'
  | 'exists'
  | 'is_null'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'between'
  | 'match'
  | 'prefix'
  | 'contains';

export type FilterValue = string | number | boolean | Array<string | number> | null;

/**
 * One condition; a call's filters all hold at once (AND). `value` by op: eq → a scalar of the
 * field's type (dates as ISO-8601 strings, decimals as strings); in → 1..100 values;
 * gt/gte/lt/lte → an ordered value; between → `[low, high]`, both inclusive, low ≤ high;
 * match → text; prefix/contains → a literal string (no wildcards); is_null → true or false;
 * exists → no value (the field has one).
 */
export interface Filter {
  field: string;
  op: FilterOp;
  value?: FilterValue;
}

export interface SortSpec {
  field: string;
  order: 'asc' | 'desc';
}

/** Arguments of `<name>_search`. */
export interface SearchArgs {
  filters?: Filter[] | null;
  fields?: string[] | null;
  sort?: SortSpec[] | null;
  limit?: number | null;
  cursor?: string | null;
}

/** A record key: `id` for a single key (a string, or the key column's value), else `key`. */
export interface KeyArgs {
  id?: string | number;
  key?: Record<string, string | number | boolean>;
}

export interface GetArgs extends KeyArgs {
  fields?: string[] | null;
}

export interface CountArgs {
  filters?: Filter[] | null;
}

/**
 * terms: top values with counts; date_histogram: counts per calendar interval (dates);
 * stats: count/min/max/avg/sum (numbers); cardinality: distinct count.
 */
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

/**
 * `write` (upsert dialects): creates or updates the record `id`, setting the given declared
 * fields; fields given as `null` (or omitted) are left unchanged.
 */
export interface WriteArgs {
  id: string;
  document: Record<string, unknown>;
}

/** `insert`: a new record with the given fields, under the dialect's payload name. */
export type InsertArgs = Record<string, Record<string, unknown>>;

/** `update`: sets the given fields of the record with this key; `null` leaves a field unchanged. */
export type UpdateArgs = KeyArgs & Record<string, unknown>;
