import { TollgateError } from '@tollgate/core';
import type { CursorValue, ResultTotal } from '@tollgate/core';

/** One hit as shaping needs it, after its structure was checked. */
export interface CheckedHit {
  id: string;
  source: Record<string, unknown>;
  sort: CursorValue[] | undefined;
}

export interface CheckedHits {
  hits: CheckedHit[];
  total: ResultTotal | undefined;
}

/** Reads `path` of an upstream body, or fails with `UPSTREAM_BAD_RESPONSE` naming what is off. */
export function badResponse(what: string, problem: string): TollgateError {
  return new TollgateError(
    'UPSTREAM_BAD_RESPONSE',
    `Elasticsearch returned an unexpected ${what} response: ${problem}.`,
  );
}

export function asRecord(value: unknown, what: string, path: string): Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  throw badResponse(what, `${path} is not an object`);
}

export function asCount(value: unknown, what: string, path: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  throw badResponse(what, `${path} is not a non-negative integer`);
}

const isCursorValue = (value: unknown): value is CursorValue =>
  value === null ||
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value));

/** Checks `hits.hits` (and `hits.total` when present); `sortKeys` > 0 requires sort values. */
export function checkHits(body: unknown, what: string, sortKeys: number): CheckedHits {
  const hitsBlock = asRecord(asRecord(body, what, 'body')['hits'], what, 'hits');
  const raw = hitsBlock['hits'];
  if (!Array.isArray(raw)) throw badResponse(what, 'hits.hits is not an array');
  const hits = raw.map((entry: unknown, index): CheckedHit => {
    const hit = asRecord(entry, what, `hits.hits[${index}]`);
    if (typeof hit['_id'] !== 'string')
      throw badResponse(what, `hits.hits[${index}]._id is not a string`);
    const source =
      hit['_source'] === undefined
        ? {}
        : asRecord(hit['_source'], what, `hits.hits[${index}]._source`);
    let sort: CursorValue[] | undefined;
    if (sortKeys > 0) {
      const values = hit['sort'];
      if (!Array.isArray(values) || values.length !== sortKeys || !values.every(isCursorValue)) {
        throw badResponse(what, `hits.hits[${index}].sort does not hold ${sortKeys} sort values`);
      }
      sort = values;
    }
    return { id: hit['_id'], source, sort };
  });
  return { hits, total: checkTotal(hitsBlock['total'], what) };
}

function checkTotal(raw: unknown, what: string): ResultTotal | undefined {
  if (raw === undefined) return undefined;
  const total = asRecord(raw, what, 'hits.total');
  const relation = total['relation'];
  if (relation !== 'eq' && relation !== 'gte')
    throw badResponse(what, 'hits.total.relation is not eq or gte');
  return { value: asCount(total['value'], what, 'hits.total.value'), relation };
}
