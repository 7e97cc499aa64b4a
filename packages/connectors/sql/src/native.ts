/**
 * The requests the SQL compiler produces: statement text built only from declared identifiers
 * (quoted by the driver) and the compiler's own keywords, and a list of bind values. Nothing
 * the model sends is ever part of `text`. Plain JSON, so audit can record it and tests can
 * assert it exactly.
 */
import type { SqlColumnType } from './model.js';

/** A bind value: only these ever travel, and only as parameters. */
export type SqlParameter = string | number | boolean | null;

/** One parameterized statement. */
export interface SqlStatement {
  text: string;
  values: SqlParameter[];
}

/** How to turn a result column back into JSON: its name in the result and its type. */
export interface OutputColumn {
  name: string;
  type: SqlColumnType;
}

/**
 * A read: one statement run in a read-only transaction under the statement timeout. `rows`
 * results are decoded with `columns`; `keys` are the result columns a cursor is taken from.
 */
export interface SqlReadRequest {
  mode: 'read';
  result: 'rows' | 'row' | 'count' | 'aggregate';
  statement: SqlStatement;
  columns: OutputColumn[];
  /** rows: the keyset columns (sort keys, then the primary key), in order. */
  keys?: string[];
  /** count: the cap the statement counts up to (the count is a lower bound when reached). */
  countCap?: number;
  /** aggregate: what the result rows mean. */
  aggregate?: AggregatePlan;
}

/** The shape of an aggregate result: group keys then metrics, and the bucket cap. */
export interface AggregatePlan {
  /** `terms`, `date_histogram`, `stats`, `cardinality`, or `group` for a grouping. */
  kind: string;
  /** Result columns holding the group key(s), in order; empty for a single summary row. */
  groups: OutputColumn[];
  /** Result columns holding metrics, named `<fn>` or `<fn>_<column>`. */
  metrics: Array<{ name: string; fn: AggregateFunction; column?: string; type: SqlColumnType }>;
  /** Most buckets returned; the statement asks for one more to tell whether there were more. */
  bucketCap: number;
  /** The grouped columns' names, in group order (what the agent asked for). */
  labels: string[];
  /** The metrics' names as the agent sees them (`count`, `sum_amount`, …), in metric order. */
  metricLabels: string[];
}

export type AggregateFunction = 'count' | 'count_distinct' | 'sum' | 'avg' | 'min' | 'max';

/**
 * A write, run in one read-write transaction: `update` first when present (affecting at most
 * one row, inside the row filter); when it changed nothing, `insert` when present. Exactly one
 * attempt: writes are never retried.
 */
export interface SqlWriteRequest {
  mode: 'write';
  result: 'write';
  update?: SqlStatement;
  insert?: SqlStatement;
  /** The primary key of the row written, as the agent named it (reported back). */
  key: Record<string, SqlParameter>;
  /**
   * insert, on a dialect without `RETURNING`: the single key column the agent left out, whose
   * value the server assigns (auto-increment) and reports as the insert id.
   */
  insertId?: string;
}

export type SqlRequest = SqlReadRequest | SqlWriteRequest;
