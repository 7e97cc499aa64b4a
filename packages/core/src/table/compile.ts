/**
 * The argument checks every table kind's compiler applies the same way: the filter list and
 * its operators, `fields`, `sort` entries, `limit` and the pieces of a single-field
 * aggregation. Each takes what the kind has already worked out (the visible, sortable or
 * aggregatable names for this principal) and adds violations under the argument's path; the
 * kind turns what they return into its data system's request.
 */
import { checkKeys, describeValue, oneOf, own } from '../tools/violations.js';
import type { Violations } from '../tools/violations.js';
import type { AggregationKind, FilterOp } from './args.js';

/** Every filter operator, in the order schemas and messages list them. */
export const FILTER_OPS: readonly FilterOp[] = [
  'eq',
  'in',
  'exists',
  'is_null',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'match',
  'prefix',
  'contains',
];

/** The single-field aggregations, in the order tools list them. */
export const AGGREGATION_KINDS: readonly AggregationKind[] = [
  'terms',
  'date_histogram',
  'stats',
  'cardinality',
];

export type CalendarInterval = 'hour' | 'day' | 'week' | 'month' | 'year';

/** The intervals a `date_histogram` buckets by. */
export const CALENDAR_INTERVALS: readonly CalendarInterval[] = [
  'hour',
  'day',
  'week',
  'month',
  'year',
];

/** Most filters in one call. */
export const MAX_FILTERS = 20;
/** Most values of one `in` filter. */
export const MAX_IN_VALUES = 100;
/** Most sort keys a request may name (the kind appends its own tiebreaker). */
export const MAX_SORT_KEYS = 3;
/** Page size when `limit` is absent (never above the cap). */
export const DEFAULT_LIMIT = 10;
/** `maxLimit` when the descriptor sets none. */
export const DEFAULT_MAX_LIMIT = 100;
/** Buckets of an aggregation when `size` is absent, and the most it may ask for. */
export const DEFAULT_BUCKETS = 10;
export const MAX_BUCKETS = 100;

/** `filters` → its entries, or undefined (reported) when it is not an array of at most 20. */
export function checkFilterList(raw: unknown, violations: Violations): unknown[] | undefined {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    violations.add('filters', 'expected an array of filters', 'array', raw);
    return undefined;
  }
  if (raw.length > MAX_FILTERS) {
    const expected = `at most ${MAX_FILTERS} items`;
    violations.add('filters', `at most ${MAX_FILTERS} filters allowed`, expected, raw);
    return undefined;
  }
  return raw;
}

/**
 * A filter's `op`, when it is one of the operators the field admits (`allowed`); `typeName`
 * is how the kind names the field's type in the message.
 */
export function checkFilterOp(
  op: unknown,
  allowed: readonly FilterOp[],
  field: string,
  typeName: string,
  path: string,
  violations: Violations,
): FilterOp | undefined {
  if (typeof op === 'string' && allowed.includes(op as FilterOp)) return op as FilterOp;
  const message =
    typeof op === 'string'
      ? `op ${describeValue(op)} is not allowed on ${typeName} field "${field}"`
      : 'expected an operator';
  violations.add(`${path}.op`, message, oneOf(allowed), op);
  return undefined;
}

/**
 * The values of an `in` (min..max) or `between` (exactly two) filter, each checked by the
 * kind's `checkItem`; undefined when the list or any item is wrong.
 */
export function checkValueList<T>(
  value: unknown,
  min: number,
  max: number,
  path: string,
  violations: Violations,
  checkItem: (item: unknown, path: string) => T | undefined,
): T[] | undefined {
  const expected =
    min === max ? `array of exactly ${min} values` : `array of ${min} to ${max} values`;
  if (!Array.isArray(value) || value.length < min || value.length > max) {
    const got = Array.isArray(value) ? `, got ${value.length}` : '';
    violations.add(path, `expected an ${expected}${got}`, expected, value);
    return undefined;
  }
  const before = violations.count;
  const items = value.map((item: unknown, index) => checkItem(item, `${path}[${index}]`));
  return violations.count === before ? (items as T[]) : undefined;
}

/** `fields` → requested ∩ `visible` (sorted), every visible field when none is named. */
export function pickFields(
  raw: unknown,
  visible: readonly string[],
  violations: Violations,
): string[] {
  if (raw === undefined || raw === null) return [...visible];
  if (!Array.isArray(raw)) {
    violations.add('fields', 'expected an array of field names', 'array', raw);
    return [];
  }
  if (raw.length > Math.max(visible.length, 1)) {
    const message = `at most ${visible.length} fields may be requested`;
    violations.add('fields', message, oneOf(visible), raw);
    return [];
  }
  const allowed = new Set(visible);
  const picked = new Set<string>();
  raw.forEach((name: unknown, index) => {
    if (typeof name === 'string' && allowed.has(name)) picked.add(name);
    else {
      const message =
        typeof name === 'string' ? `field "${name}" is not returnable` : 'expected a field name';
      violations.add(`fields[${index}]`, message, oneOf(visible), name);
    }
  });
  return picked.size === 0 ? [...visible] : [...picked].sort();
}

/** One `sort` entry as checked: a sortable field, named once, and its direction. */
export interface SortEntry {
  field: string;
  order: 'asc' | 'desc';
}

/**
 * `sort` → up to three entries on `sortable` fields, each field once; an absent or empty
 * `sort` is none. The kind adds its tiebreaker so pages are stable.
 */
export function pickSortEntries(
  raw: unknown,
  sortable: readonly string[],
  violations: Violations,
): SortEntry[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.length > MAX_SORT_KEYS) {
    const expected = `array of at most ${MAX_SORT_KEYS} sort keys`;
    violations.add('sort', `expected an ${expected}`, expected, raw);
    return [];
  }
  const entries: SortEntry[] = [];
  raw.forEach((entry: unknown, index) => {
    const path = `sort[${index}]`;
    if (!checkKeys(entry, ['field', 'order'], path, violations)) return;
    const field = own(entry, 'field');
    const order = own(entry, 'order');
    const seen = entries.some((picked) => picked.field === field);
    if (typeof field !== 'string' || !sortable.includes(field) || seen) {
      const message =
        typeof field !== 'string'
          ? 'expected a field name'
          : seen
            ? `field "${field}" is sorted on twice`
            : `field "${field}" is not sortable`;
      violations.add(`${path}.field`, message, oneOf(sortable), field);
      return;
    }
    if (order !== 'asc' && order !== 'desc') {
      violations.add(`${path}.order`, 'expected "asc" or "desc"', 'one of: asc, desc', order);
      return;
    }
    entries.push({ field, order });
  });
  return entries;
}

/** The effective upper bound for `limit`: the permission's cap within the resource's `maxLimit`. */
export function limitCapOf(permissionCap: number, maxLimit: number | undefined): number {
  return Math.min(permissionCap, maxLimit ?? DEFAULT_MAX_LIMIT);
}

/** `limit` → page size: an integer within 1..cap (rejected, not clamped, when outside). */
export function checkLimit(raw: unknown, cap: number, violations: Violations): number {
  if (raw === undefined || raw === null) return Math.min(DEFAULT_LIMIT, cap);
  if (!isIntegerIn(raw, 1, cap)) {
    const expected = `integer from 1 to ${cap}`;
    violations.add('limit', `limit must be an ${expected}`, expected, raw);
    return 0;
  }
  return raw;
}

/** `aggregation.kind`, when it is one of the family's single-field aggregations. */
export function checkAggregationKind(
  raw: unknown,
  violations: Violations,
): AggregationKind | undefined {
  if (typeof raw === 'string' && AGGREGATION_KINDS.includes(raw as AggregationKind)) {
    return raw as AggregationKind;
  }
  violations.add('aggregation.kind', 'unknown aggregation kind', oneOf(AGGREGATION_KINDS), raw);
  return undefined;
}

/** `aggregation.field`, when it is one of the fields `kind` may use (`allowed`). */
export function checkAggregationField(
  raw: unknown,
  kind: AggregationKind,
  allowed: readonly string[],
  violations: Violations,
): string | undefined {
  if (typeof raw === 'string' && allowed.includes(raw)) return raw;
  const message =
    typeof raw === 'string'
      ? `field "${raw}" cannot be used in a ${kind} aggregation`
      : 'expected a field name';
  violations.add('aggregation.field', message, oneOf(allowed), raw);
  return undefined;
}

/** `aggregation.interval`: a calendar interval for `date_histogram`, absent for the others. */
export function checkInterval(
  raw: unknown,
  kind: AggregationKind,
  violations: Violations,
): CalendarInterval | undefined {
  if (kind === 'date_histogram') {
    if (CALENDAR_INTERVALS.includes(raw as CalendarInterval)) return raw as CalendarInterval;
    violations.add(
      'aggregation.interval',
      'date_histogram needs a calendar interval',
      oneOf(CALENDAR_INTERVALS),
      raw,
    );
  } else if (raw !== undefined && raw !== null) {
    violations.add('aggregation.interval', 'interval applies to date_histogram only', 'null', raw);
  }
  return undefined;
}

/**
 * `aggregation.size`: 1..MAX_BUCKETS where the aggregation has buckets (`applies`), absent
 * elsewhere (`notApplicable` says which aggregations take it). Absent is `DEFAULT_BUCKETS`.
 */
export function checkBucketSize(
  raw: unknown,
  applies: boolean,
  notApplicable: string,
  violations: Violations,
): number {
  if (raw === undefined || raw === null) return DEFAULT_BUCKETS;
  const expected = `integer from 1 to ${MAX_BUCKETS}`;
  if (!applies) violations.add('aggregation.size', notApplicable, 'null', raw);
  else if (!isIntegerIn(raw, 1, MAX_BUCKETS)) {
    violations.add('aggregation.size', `size must be an ${expected}`, expected, raw);
  }
  return typeof raw === 'number' ? raw : DEFAULT_BUCKETS;
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
