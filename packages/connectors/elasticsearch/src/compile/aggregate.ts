import { redactionFor } from '@tollgate/core';
import type { AggregationKind, CompileContext, CompiledRequest, FieldType } from '@tollgate/core';

import { isNumericType } from '../kind/model.js';
import { esSpec } from '../kind/spec.js';
import type { EsAggregation, EsSearchRequest } from '../native.js';
import { boolQuery, compileFilters, declaredField } from './filters.js';
import { TRACK_TOTAL_HITS } from './read.js';
import { compiledRequest } from './request.js';
import { checkKeys, oneOf, own, Violations } from '@tollgate/core';

/** Default and maximum bucket count of a terms aggregation. */
export const DEFAULT_TERMS_SIZE = 10;
export const MAX_TERMS_SIZE = 100;
export const CALENDAR_INTERVALS = ['hour', 'day', 'week', 'month', 'year'] as const;

const KINDS: readonly AggregationKind[] = ['terms', 'date_histogram', 'stats', 'cardinality'];

/** Which field types each aggregation accepts. */
function acceptsType(kind: AggregationKind, type: FieldType): boolean {
  const term = type === 'keyword' || type === 'ip' || type === 'boolean';
  switch (kind) {
    case 'terms':
      return term || isNumericType(type);
    case 'date_histogram':
      return type === 'date';
    case 'stats':
      return type === 'date' || isNumericType(type);
    case 'cardinality':
      return term || type === 'date' || isNumericType(type);
  }
}

/**
 * Fields this principal may aggregate with `kind`: declared aggregatable, visible to them (an
 * aggregation reveals values), not subject to redaction, and of a type the kind accepts.
 */
export function aggregatableFields(ctx: CompileContext, kind: AggregationKind): string[] {
  const { access } = ctx.descriptor.spec;
  return [...new Set(ctx.permissions.visibleFields)]
    .filter((name) => {
      const spec = declaredField(ctx, name);
      return (
        spec?.aggregatable === true &&
        redactionFor(access, name, ctx.permissions) === undefined &&
        acceptsType(kind, spec.type)
      );
    })
    .sort();
}

/** `<name>_aggregate` arguments → a size-0 search computing one capped aggregation. */
export function compileAggregate(
  args: unknown,
  ctx: CompileContext,
): CompiledRequest<EsSearchRequest> {
  const violations = new Violations();
  if (!checkKeys(args, ['filters', 'aggregation'], '', violations))
    violations.throwIfAny('aggregate');
  const input = args as Record<string, unknown>;
  const filters = compileFilters(own(input, 'filters'), ctx, violations);
  const spec = own(input, 'aggregation');
  let aggregation: EsAggregation | undefined;
  let field = '';
  if (checkKeys(spec, ['kind', 'field', 'size', 'interval'], 'aggregation', violations)) {
    const kind = own(spec, 'kind');
    if (typeof kind !== 'string' || !KINDS.includes(kind as AggregationKind)) {
      violations.add('aggregation.kind', 'unknown aggregation kind', oneOf(KINDS), kind);
    } else {
      field = String(own(spec, 'field'));
      aggregation = compileAggregation(kind as AggregationKind, spec, ctx, violations);
    }
  }
  violations.throwIfAny('aggregate');

  const index = esSpec(ctx.descriptor).target.index;
  const body = {
    query: boolQuery(ctx, filters),
    _source: false as const,
    size: 0,
    track_total_hits: TRACK_TOTAL_HITS,
    aggs: { result: aggregation as EsAggregation },
  };
  return compiledRequest(ctx, 'aggregate', [field], { api: 'search', index, body });
}

function compileAggregation(
  kind: AggregationKind,
  spec: Record<string, unknown>,
  ctx: CompileContext,
  violations: Violations,
): EsAggregation | undefined {
  const field = own(spec, 'field');
  const allowed = aggregatableFields(ctx, kind);
  if (typeof field !== 'string' || !allowed.includes(field)) {
    const message =
      typeof field === 'string'
        ? `field "${field}" cannot be used in a ${kind} aggregation`
        : 'expected a field name';
    violations.add('aggregation.field', message, oneOf(allowed), field);
  }
  const size = own(spec, 'size');
  const interval = own(spec, 'interval');
  const sizeExpected = `integer from 1 to ${MAX_TERMS_SIZE}`;
  if (kind === 'terms') {
    if (size !== undefined && size !== null && !isIntegerIn(size, 1, MAX_TERMS_SIZE)) {
      violations.add('aggregation.size', `size must be an ${sizeExpected}`, sizeExpected, size);
    }
  } else if (size !== undefined && size !== null) {
    violations.add('aggregation.size', 'size applies to terms aggregations only', 'null', size);
  }
  if (kind === 'date_histogram') {
    if (!CALENDAR_INTERVALS.includes(interval as (typeof CALENDAR_INTERVALS)[number])) {
      violations.add(
        'aggregation.interval',
        'date_histogram needs a calendar interval',
        oneOf(CALENDAR_INTERVALS),
        interval,
      );
    }
  } else if (interval !== undefined && interval !== null) {
    violations.add(
      'aggregation.interval',
      'interval applies to date_histogram only',
      'null',
      interval,
    );
  }
  if (typeof field !== 'string') return undefined;
  switch (kind) {
    case 'terms':
      return { terms: { field, size: typeof size === 'number' ? size : DEFAULT_TERMS_SIZE } };
    case 'date_histogram':
      return { date_histogram: { field, calendar_interval: String(interval), min_doc_count: 1 } };
    case 'stats':
      return { stats: { field } };
    case 'cardinality':
      return { cardinality: { field } };
  }
}

function isIntegerIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
