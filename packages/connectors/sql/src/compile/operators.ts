import type { SqlColumn, SqlValueClass } from '../model.js';

/**
 * The filter operators of the table family that SQL columns use. `prefix` and `contains` match
 * case-insensitively with the agent's `%`, `_` and `!` taken literally; `is_null` takes
 * `true` (IS NULL) or `false` (IS NOT NULL); `exists` is `is_null: false`.
 */
export type SqlFilterOp =
  | 'eq'
  | 'in'
  | 'exists'
  | 'is_null'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'between'
  | 'prefix'
  | 'contains';

export const SQL_FILTER_OPS: readonly SqlFilterOp[] = [
  'eq',
  'in',
  'exists',
  'is_null',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'prefix',
  'contains',
];

const ORDERED: ReadonlySet<SqlValueClass> = new Set([
  'integer',
  'number',
  'decimal',
  'datetime',
  'date',
]);
const COMPARABLE: ReadonlySet<SqlValueClass> = new Set([...ORDERED, 'string', 'uuid', 'boolean']);
const RANGE_OPS: SqlFilterOp[] = ['gt', 'gte', 'lt', 'lte', 'between'];

/** Classes whose values have an order (ranges, min/max, sorting, keyset pagination). */
export function isOrderedClass(type: SqlValueClass): boolean {
  return ORDERED.has(type) || type === 'string' || type === 'uuid' || type === 'boolean';
}

/** Classes with an arithmetic mean and sum. */
export function isNumericClass(type: SqlValueClass): boolean {
  return type === 'integer' || type === 'number' || type === 'decimal';
}

/** Classes a value can be compared with at all (filters, grouping). */
export function isComparableClass(type: SqlValueClass): boolean {
  return COMPARABLE.has(type);
}

/**
 * The operators a column admits, pruned by its type, its capabilities and its nullability:
 * strings eq/in (filterable) and prefix/contains (searchable); uuids eq/in; numbers, decimals,
 * dates and date-times eq/in (filterable) and ranges (range); booleans eq; nullable columns
 * also exists/is_null. Enum strings are never searched by pattern.
 */
export function filterOpsForColumn(column: SqlColumn): SqlFilterOp[] {
  const ops: SqlFilterOp[] = [];
  const { class: type } = column.type;
  const filterable = column.filterable === true;
  if (type === 'string') {
    if (filterable) ops.push('eq', 'in');
    if (column.searchable === true && column.type.enum === undefined)
      ops.push('prefix', 'contains');
  } else if (type === 'uuid') {
    if (filterable) ops.push('eq', 'in');
  } else if (ORDERED.has(type)) {
    if (filterable) ops.push('eq', 'in');
    if (column.range === true) ops.push(...RANGE_OPS);
  } else if (type === 'boolean') {
    if (filterable) ops.push('eq');
  } else return [];
  if (filterable && column.nullable) ops.push('exists', 'is_null');
  return ops;
}
