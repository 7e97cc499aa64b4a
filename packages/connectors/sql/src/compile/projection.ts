import type { SqlColumn } from '../model.js';
import { columnOf, redactionOf } from './context.js';
import type { SqlCompileContext } from './context.js';
import { isOrderedClass } from './operators.js';
import { checkKeys, oneOf, own } from '@tollgate/core';
import type { Violations } from '@tollgate/core';

export const MAX_SORT_KEYS = 3;
export const DEFAULT_LIMIT = 10;
export const DEFAULT_MAX_LIMIT = 100;

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
  const visible = visibleColumns(ctx);
  if (raw === undefined || raw === null) return visible;
  if (!Array.isArray(raw) || raw.length > Math.max(visible.length, 1)) {
    violations.add(
      'fields',
      `expected an array of at most ${visible.length} field names`,
      oneOf(visible),
      raw,
    );
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
  return picked.size === 0 ? visible : [...picked].sort();
}

/** Columns this principal may sort by: declared sortable, ordered, and visible or filterable to them. */
export function sortableColumns(ctx: SqlCompileContext): string[] {
  const usable = new Set([...ctx.permissions.visibleFields, ...ctx.permissions.filterableFields]);
  return [...usable]
    .filter((name) => {
      const column = columnOf(ctx, name);
      return column?.sortable === true && isOrderedClass(column.type.class);
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
  const keys: SortKey[] = [];
  const seen = new Set<string>();
  if (raw !== undefined && raw !== null) {
    if (!Array.isArray(raw) || raw.length > MAX_SORT_KEYS) {
      const expected = `array of at most ${MAX_SORT_KEYS} sort keys`;
      violations.add('sort', `expected an ${expected}`, expected, raw);
      return [];
    }
    const sortable = sortableColumns(ctx);
    raw.forEach((entry: unknown, index) => {
      const path = `sort[${index}]`;
      if (!checkKeys(entry, ['field', 'order'], path, violations)) return;
      const field = own(entry, 'field');
      const order = own(entry, 'order');
      const column =
        typeof field === 'string' && sortable.includes(field) ? columnOf(ctx, field) : undefined;
      if (typeof field !== 'string' || column === undefined || seen.has(field)) {
        const message =
          typeof field !== 'string'
            ? 'expected a field name'
            : seen.has(field)
              ? `field "${field}" is sorted on twice`
              : `field "${field}" is not sortable`;
        violations.add(`${path}.field`, message, oneOf(sortable), field);
        return;
      }
      seen.add(field);
      if (order !== 'asc' && order !== 'desc') {
        violations.add(`${path}.order`, 'expected "asc" or "desc"', 'one of: asc, desc', order);
        return;
      }
      keys.push({ column, order });
    });
  }
  for (const name of ctx.table.primaryKey) {
    const column = columnOf(ctx, name);
    if (column !== undefined && !seen.has(name)) keys.push({ column, order: 'asc' });
  }
  return keys;
}

/** The effective upper bound for `limit`. */
export function limitCap(ctx: SqlCompileContext): number {
  return Math.min(ctx.permissions.limitCap, ctx.maxLimit ?? DEFAULT_MAX_LIMIT);
}

/** `limit` → page size within 1..cap (rejected, not clamped, when outside). */
export function compileLimit(raw: unknown, ctx: SqlCompileContext, violations: Violations): number {
  const cap = limitCap(ctx);
  if (raw === undefined || raw === null) return Math.min(DEFAULT_LIMIT, cap);
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > cap) {
    violations.add(
      'limit',
      `limit must be an integer from 1 to ${cap}`,
      `integer from 1 to ${cap}`,
      raw,
    );
    return 0;
  }
  return raw;
}
