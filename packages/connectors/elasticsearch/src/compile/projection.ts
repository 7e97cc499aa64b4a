import {
  checkLimit,
  isSortable,
  limitCapOf,
  pickFields,
  pickSortEntries,
  redactionFor,
  traitsOrOpaque,
} from '@tollgate/core';
import type { CompileContext, FieldSpec } from '@tollgate/core';
import type { Violations } from '@tollgate/core';

import { elasticsearchModel } from '../kind/model.js';
import type { EsSortClause } from '../native.js';
import { declaredField } from './filters.js';

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
  return pickFields(raw, visibleFields(ctx), violations);
}

/** Fields this principal may sort by: declared sortable, of a sortable type, and usable by them. */
export function sortableFields(ctx: CompileContext): string[] {
  const usable = new Set([...ctx.permissions.visibleFields, ...ctx.permissions.filterableFields]);
  return [...usable]
    .filter((name) => {
      const spec = declaredField(ctx, name);
      return spec !== undefined && isSortable(spec, traitsOrOpaque(elasticsearchModel, spec));
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
  const clauses = pickSortEntries(raw, sortableFields(ctx), violations).map(
    ({ field, order }): EsSortClause => {
      const spec = declaredField(ctx, field) as FieldSpec;
      return { [field]: { order, unmapped_type: unmappedType(spec) } };
    },
  );
  return [...clauses, tiebreaker];
}

/** Sorting on an index of the target that lacks the field treats it as this (core) type. */
function unmappedType(spec: FieldSpec): string {
  return spec.type === 'scaled_float' ? 'double' : spec.type;
}

/** `limit` → page size within 1..min(permission cap, `maxLimit`). */
export function compileLimit(raw: unknown, ctx: CompileContext, violations: Violations): number {
  const cap = limitCapOf(ctx.permissions.limitCap, ctx.descriptor.spec.access.maxLimit);
  return checkLimit(raw, cap, violations);
}
