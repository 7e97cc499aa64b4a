import {
  DEFAULT_LIMITS,
  MAX_IN_VALUES,
  TollgateError,
  checkFilterList,
  checkFilterOp,
  checkValueList,
  filterOpsOf,
  traitsOrOpaque,
} from '@tollgate/core';
import type { CompileContext, FieldSpec, FilterOp } from '@tollgate/core';

import { elasticsearchModel, isOrderedType } from '../kind/model.js';
import type { EsBoolQuery, EsClause, EsRange } from '../native.js';
import { checkScalar } from './values.js';
import type { Scalar } from './values.js';
import { checkKeys, oneOf, own } from '@tollgate/core';
import type { Violations } from '@tollgate/core';

/** Dates are always sent as ISO-8601, whatever format the index maps them with. */
export const DATE_FORMAT = 'strict_date_optional_time';

/** Filters turned into bool clauses: exact conditions in `filter`, full-text ones in `must`. */
export interface CompiledFilters {
  filter: EsClause[];
  must: EsClause[];
}

/** The declared (merged) spec of a field, looked up without touching the prototype chain. */
export function declaredField(ctx: CompileContext, name: string): FieldSpec | undefined {
  const fields = ctx.descriptor.spec.schema.fields;
  return Object.hasOwn(fields, name) ? fields[name] : undefined;
}

/**
 * Compiles the agent's `filters`: each field must be filterable for this principal and the op
 * allowed for its type and capabilities; values are checked and only ever used literally.
 */
export function compileFilters(
  raw: unknown,
  ctx: CompileContext,
  violations: Violations,
): CompiledFilters {
  const out: CompiledFilters = { filter: [], must: [] };
  const entries = checkFilterList(raw, violations);
  const filterable = new Set(ctx.permissions.filterableFields);
  entries?.forEach((entry: unknown, index) => {
    const path = `filters[${index}]`;
    if (!checkKeys(entry, ['field', 'op', 'value'], path, violations)) return;
    const field = own(entry, 'field');
    const spec =
      typeof field === 'string' && filterable.has(field) ? declaredField(ctx, field) : undefined;
    if (typeof field !== 'string' || spec === undefined) {
      const message =
        typeof field === 'string' ? `field "${field}" is not filterable` : 'expected a field name';
      violations.add(`${path}.field`, message, oneOf(ctx.permissions.filterableFields), field);
      return;
    }
    const allowed = filterOpsOf(
      spec,
      traitsOrOpaque(elasticsearchModel, spec),
      elasticsearchModel.dialect,
      DEFAULT_LIMITS,
    );
    const op = checkFilterOp(own(entry, 'op'), allowed, field, spec.type, path, violations);
    if (op === undefined) return;
    const clause = compileFilter(field, spec, op, own(entry, 'value'), path, violations);
    if (clause !== undefined) (op === 'match' ? out.must : out.filter).push(clause);
  });
  return out;
}

function compileFilter(
  field: string,
  spec: FieldSpec,
  op: FilterOp,
  value: unknown,
  path: string,
  violations: Violations,
): EsClause | undefined {
  const valuePath = `${path}.value`;
  const date = spec.type === 'date' ? { format: DATE_FORMAT } : {};
  switch (op) {
    case 'exists':
      if (value !== undefined && value !== null) {
        violations.add(valuePath, 'exists takes no value', 'null', value);
        return undefined;
      }
      return { exists: { field } };
    case 'match': {
      const text = checkScalar(value, spec, valuePath, violations);
      return text === undefined ? undefined : { match: { [field]: { query: String(text) } } };
    }
    case 'eq': {
      const scalar = checkScalar(value, spec, valuePath, violations);
      if (scalar === undefined) return undefined;
      if (spec.type === 'date')
        return range(field, { gte: scalar as string, lte: scalar as string, ...date });
      return { term: { [field]: { value: scalar } } };
    }
    case 'in': {
      const list = checkList(value, spec, valuePath, violations, 1, MAX_IN_VALUES);
      return list === undefined
        ? undefined
        : { terms: { [field]: list as Array<string | number> } };
    }
    case 'between': {
      const bounds = checkList(value, spec, valuePath, violations, 2, 2);
      if (bounds === undefined) return undefined;
      const [low, high] = bounds as [string | number, string | number];
      if (compareOrdered(low, high) > 0) {
        violations.add(
          valuePath,
          'lower bound is greater than upper bound',
          '[low, high] with low <= high',
          value,
        );
        return undefined;
      }
      return range(field, { gte: low, lte: high, ...date });
    }
    default: {
      const scalar = checkScalar(value, spec, valuePath, violations);
      if (scalar === undefined || !isOrderedType(spec.type)) return undefined;
      return range(field, { [op]: scalar as string | number, ...date });
    }
  }
}

function checkList(
  value: unknown,
  spec: FieldSpec,
  path: string,
  violations: Violations,
  min: number,
  max: number,
): Scalar[] | undefined {
  return checkValueList(value, min, max, path, violations, (item, itemPath) =>
    checkScalar(item, spec, itemPath, violations),
  );
}

function compareOrdered(low: string | number, high: string | number): number {
  if (typeof low === 'number' && typeof high === 'number') return low - high;
  return Date.parse(String(low)) - Date.parse(String(high));
}

function range(field: string, bounds: EsRange): EsClause {
  return { range: { [field]: bounds } };
}

/**
 * The descriptor's row filter as a term clause on the principal's attribute. It is added to
 * every read whatever the arguments; a principal without the attribute is denied.
 */
export function rowFilterClause(ctx: CompileContext): EsClause | undefined {
  const rowFilter = ctx.descriptor.spec.access.rowFilter;
  if (rowFilter === undefined) return undefined;
  return { term: { [rowFilter.field]: { value: rowFilterValue(ctx) } } };
}

/** The value the row filter pins its field to for this principal. */
export function rowFilterValue(ctx: CompileContext): string {
  const rowFilter = ctx.descriptor.spec.access.rowFilter;
  const { principal } = ctx;
  const value =
    rowFilter?.equals === 'principal.tenant'
      ? principal.tenant
      : rowFilter?.equals === 'principal.agent'
        ? principal.agent
        : principal.user;
  if (typeof value !== 'string' || value.length === 0) {
    throw new TollgateError(
      'POLICY_DENIED',
      `${ctx.descriptor.metadata.name} only serves rows scoped to ${rowFilter?.equals ?? 'a principal attribute'}, which this call does not have.`,
    );
  }
  return value;
}

/** The final query: the row filter first, then the agent's conditions. */
export function boolQuery(
  ctx: CompileContext,
  filters: CompiledFilters,
  extra: EsClause[] = [],
): EsBoolQuery {
  const row = rowFilterClause(ctx);
  const filter = [...(row === undefined ? [] : [row]), ...extra, ...filters.filter];
  return { bool: filters.must.length > 0 ? { filter, must: filters.must } : { filter } };
}
