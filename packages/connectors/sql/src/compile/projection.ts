import { checkLimit, isSortable, limitCapOf, pickFields, pickSortEntries } from '@tollgate/core';
import type { Violations } from '@tollgate/core';

import type { SqlColumn } from '../model.js';
import { columnOf, redactionOf } from './context.js';
import type { SqlCompileContext } from './context.js';
import { asFieldSpec, traitsOfColumn } from './operators.js';

/** One `ORDER BY` key as compiled: the column and its direction. */
export interface SortKey {
  column: SqlColumn;
  order: 'asc' | 'desc';
}

/**
 * Columns this principal may receive: visible in the permission set, declared returnable and
 * not redacted with `drop`. Sorted.
 */
export function visibleColumns(ctx: SqlCompileContext): string[] {
  return [...new Set(ctx.permissions.visibleFields)]
    .filter((name) => columnOf(ctx, name)?.returnable === true && redactionOf(ctx, name) !== 'drop')
    .sort();
}

/** `fields` → requested ∩ visible, every visible column by default. */
export function compileFields(
  raw: unknown,
  ctx: SqlCompileContext,
  violations: Violations,
): string[] {
  return pickFields(raw, visibleColumns(ctx), violations);
}

/** Columns this principal may sort by: declared sortable, ordered, and visible or filterable to them. */
export function sortableColumns(ctx: SqlCompileContext): string[] {
  const usable = new Set([...ctx.permissions.visibleFields, ...ctx.permissions.filterableFields]);
  return [...usable]
    .filter((name) => {
      const column = columnOf(ctx, name);
      return column !== undefined && isSortable(asFieldSpec(column), traitsOfColumn(column));
    })
    .sort();
}

/**
 * `sort` → the agent's sort keys followed by the primary key columns not already sorted on
 * (ascending), so the order is total and keyset pages never skip or repeat a row.
 */
export function compileSort(
  raw: unknown,
  ctx: SqlCompileContext,
  violations: Violations,
): SortKey[] {
  const keys: SortKey[] = pickSortEntries(raw, sortableColumns(ctx), violations).map(
    ({ field, order }) => ({ column: columnOf(ctx, field) as SqlColumn, order }),
  );
  for (const name of ctx.table.primaryKey) {
    const column = columnOf(ctx, name);
    if (column !== undefined && !keys.some((key) => key.column.name === name)) {
      keys.push({ column, order: 'asc' });
    }
  }
  return keys;
}

/** `limit` → page size within 1..min(permission cap, `maxLimit`). */
export function compileLimit(raw: unknown, ctx: SqlCompileContext, violations: Violations): number {
  return checkLimit(raw, limitCapOf(ctx.permissions.limitCap, ctx.maxLimit), violations);
}
