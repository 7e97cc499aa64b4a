import { redactionFor } from '@tollgate/core';
import type { CompileContext, FieldSpec, FieldType } from '@tollgate/core';

import { declaredField } from './filters.js';
import { checkKeys, oneOf, own } from '@tollgate/core';
import type { Violations } from '@tollgate/core';
import type { EsSortClause } from '../native.js';

/** Most sort keys a request may name (a `_doc` tiebreaker is always appended). */
export const MAX_SORT_KEYS = 3;
/** Default page size when `limit` is absent (never above the cap). */
export const DEFAULT_LIMIT = 10;
/** Default `maxLimit` when the descriptor sets none. */
export const DEFAULT_MAX_LIMIT = 100;

const UNSORTABLE: ReadonlySet<FieldType> = new Set(['text', 'object', 'nested', 'geo_point']);

/**
 * Fields this principal may receive: visible in the permission set, declared returnable and
 * not redacted with `drop`. Sorted.
 */
export function visibleFields(ctx: CompileContext): string[] {
  const { access } = ctx.descriptor.spec;
  return [...new Set(ctx.permissions.visibleFields)]
    .filter((name) => declaredField(ctx, name)?.returnable === true)
    .filter((name) => redactionFor(access, name, ctx.permissions) !== 'drop')
    .sort();
}

/** `fields` → the `_source` includes: requested ∩ visible, all visible by default. */
export function compileFields(raw: unknown, ctx: CompileContext, violations: Violations): string[] {
  const visible = visibleFields(ctx);
  if (raw === undefined || raw === null) return visible;
  if (!Array.isArray(raw)) {
    violations.add('fields', 'expected an array of field names', 'array', raw);
    return [];
  }
  if (raw.length > Math.max(visible.length, 1)) {
    violations.add(
      'fields',
      `at most ${visible.length} fields may be requested`,
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

/** Fields this principal may sort by: declared sortable, of a sortable type, and usable by them. */
export function sortableFields(ctx: CompileContext): string[] {
  const usable = new Set([...ctx.permissions.visibleFields, ...ctx.permissions.filterableFields]);
  return [...usable]
    .filter((name) => {
      const spec = declaredField(ctx, name);
      return spec?.sortable === true && !UNSORTABLE.has(spec.type);
    })
    .sort();
}

/**
 * `sort` → sort clauses ending with a `_doc` tiebreaker so `search_after` pages are stable;
 * without `sort`, relevance first when the query has full-text conditions.
 */
export function compileSort(
  raw: unknown,
  ctx: CompileContext,
  violations: Violations,
  fullText: boolean,
): EsSortClause[] {
  const tiebreaker: EsSortClause = { _doc: { order: 'asc' } };
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) {
    return fullText ? [{ _score: { order: 'desc' } }, tiebreaker] : [tiebreaker];
  }
  if (!Array.isArray(raw) || raw.length > MAX_SORT_KEYS) {
    const expected = `array of at most ${MAX_SORT_KEYS} sort keys`;
    violations.add('sort', `expected an ${expected}`, expected, raw);
    return [];
  }
  const sortable = sortableFields(ctx);
  const seen = new Set<string>();
  const clauses: EsSortClause[] = [];
  raw.forEach((entry: unknown, index) => {
    const path = `sort[${index}]`;
    if (!checkKeys(entry, ['field', 'order'], path, violations)) return;
    const field = own(entry, 'field');
    const order = own(entry, 'order');
    const spec =
      typeof field === 'string' && sortable.includes(field) ? declaredField(ctx, field) : undefined;
    if (typeof field !== 'string' || spec === undefined || seen.has(field)) {
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
    clauses.push({ [field]: { order, unmapped_type: unmappedType(spec) } });
  });
  return [...clauses, tiebreaker];
}

/** Sorting on an index of the target that lacks the field treats it as this (core) type. */
function unmappedType(spec: FieldSpec): string {
  return spec.type === 'scaled_float' ? 'double' : spec.type;
}

/** The effective upper bound for `limit`. */
export function limitCap(ctx: CompileContext): number {
  return Math.min(
    ctx.permissions.limitCap,
    ctx.descriptor.spec.access.maxLimit ?? DEFAULT_MAX_LIMIT,
  );
}

/** `limit` → page size: an integer within 1..cap (rejected, not clamped, when outside). */
export function compileLimit(raw: unknown, ctx: CompileContext, violations: Violations): number {
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
