import { DEFAULT_LIMITS, filterOpsOf } from '@tollgate/core';
import type { FieldSpec, FieldTraits, FilterOp } from '@tollgate/core';

import { sqlTableModel, traitsOfType } from '../kind/model.js';
import type { SqlColumn } from '../model.js';

/**
 * The filter operators of the table family that SQL columns use. `prefix` and `contains` match
 * case-insensitively with the agent's `%`, `_` and `!` taken literally; `is_null` takes
 * `true` (IS NULL) or `false` (IS NOT NULL); `exists` is `is_null: false`.
 */
export type SqlFilterOp = Exclude<FilterOp, 'match'>;

/** A column's type in the table family's words (what its values are, whether null is one). */
export function traitsOfColumn(column: SqlColumn): FieldTraits {
  return traitsOfType(column.type, column.nullable);
}

/** A column's granted capabilities, as the family's field checks read them. */
export function asFieldSpec(column: SqlColumn): FieldSpec {
  return column as unknown as FieldSpec;
}

/**
 * The operators a column admits: exactly what the table family offers the column in its tools
 * (`filterOpsOf` on the column's traits and capabilities), so compile re-checks what the tool
 * schema allowed — strings eq/in (filterable) and prefix/contains (searchable); uuids eq/in;
 * numbers, decimals and dates eq (filterable) and ranges (range); booleans eq; nullable
 * filterable columns is_null.
 */
export function filterOpsForColumn(column: SqlColumn): SqlFilterOp[] {
  const ops = filterOpsOf(
    asFieldSpec(column),
    traitsOfColumn(column),
    sqlTableModel.dialect,
    DEFAULT_LIMITS,
  );
  return ops.filter((op): op is SqlFilterOp => op !== 'match');
}
