import type { ResultTotal } from '@tollgate/core';

import type { EsAggregation } from '../native.js';
import { asCount, asRecord, badResponse, checkHits } from './response.js';

/** Most buckets returned to the agent (terms are capped at compile time already). */
export const MAX_BUCKETS = 500;

/** One bucket: its key (dates and booleans as text) and how many documents fall in it. */
export interface Bucket {
  key: string | number;
  count: number;
}

/** An aggregation result as the agent receives it. */
export interface AggregationData {
  kind: string;
  field: string;
  buckets?: Bucket[];
  /** terms: documents in buckets left out by the size cap. */
  otherCount?: number;
  stats?: Record<string, number | string | null>;
  value?: number;
}

export interface CheckedAggregation {
  data: AggregationData;
  total: ResultTotal | undefined;
}

/** Checks and reduces the `result` aggregation of a size-0 search. */
export function checkAggregation(body: unknown, aggregation: EsAggregation): CheckedAggregation {
  const what = 'aggregation';
  const { total } = checkHits(body, what, 0);
  const result = asRecord(
    asRecord(asRecord(body, what, 'body')['aggregations'], what, 'aggregations')['result'],
    what,
    'aggregations.result',
  );
  const [kind, params] = Object.entries(aggregation)[0] as [string, { field: string }];
  const base = { kind, field: params.field };
  if (kind === 'stats') return { data: { ...base, stats: checkStats(result) }, total };
  if (kind === 'cardinality') {
    return {
      data: { ...base, value: asCount(result['value'], what, 'aggregations.result.value') },
      total,
    };
  }
  const raw = result['buckets'];
  if (!Array.isArray(raw)) throw badResponse(what, 'aggregations.result.buckets is not an array');
  const buckets = raw.map((entry: unknown, index): Bucket => {
    const bucket = asRecord(entry, what, `aggregations.result.buckets[${index}]`);
    const key = bucket['key_as_string'] ?? bucket['key'];
    if (typeof key !== 'string' && typeof key !== 'number') {
      throw badResponse(
        what,
        `aggregations.result.buckets[${index}].key is not a string or number`,
      );
    }
    return {
      key,
      count: asCount(bucket['doc_count'], what, `aggregations.result.buckets[${index}].doc_count`),
    };
  });
  const data: AggregationData = { ...base, buckets };
  if (kind === 'terms')
    data.otherCount = asCount(
      result['sum_other_doc_count'] ?? 0,
      what,
      'aggregations.result.sum_other_doc_count',
    );
  return { data, total };
}

function checkStats(result: Record<string, unknown>): Record<string, number | string | null> {
  const stats: Record<string, number | string | null> = {
    count: asCount(result['count'], 'aggregation', 'aggregations.result.count'),
  };
  const dates = typeof result['min_as_string'] === 'string';
  for (const key of dates ? ['min', 'max', 'avg'] : ['min', 'max', 'avg', 'sum']) {
    const value = dates ? result[`${key}_as_string`] : result[key];
    if (value === null || value === undefined) stats[key] = null;
    else if (
      (dates && typeof value === 'string') ||
      (typeof value === 'number' && Number.isFinite(value))
    ) {
      stats[key] = value as string | number;
    } else throw badResponse('aggregation', `aggregations.result.${key} is not a number`);
  }
  return stats;
}
