import { DEFAULT_LIMITS, filterOpsOf } from '@tollgate/core';
import type { FieldSpec } from '@tollgate/core';

import { sqlTableModel, traitsOfType } from '../kind/model.js';
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
 * The operators a column admits: exactly what the table family offers the column in its tools
 * (`filterOpsOf` on the column's traits and capabilities), so compile re-checks what the tool
 * schema allowed — strings eq/in (filterable) and prefix/contains (searchable); uuids eq/in;
 * numbers, decimals and dates eq (filterable) and ranges (range); booleans eq; nullable
 * filterable columns is_null.
 */
export function filterOpsForColumn(column: SqlColumn): SqlFilterOp[] {
  const traits = traitsOfType(column.type, column.nullable);
  const ops = filterOpsOf(
    column as unknown as FieldSpec,
    traits,
    sqlTableModel.dialect,
    DEFAULT_LIMITS,
  );
  return ops.filter((op): op is SqlFilterOp => (SQL_FILTER_OPS as readonly string[]).includes(op));
}
