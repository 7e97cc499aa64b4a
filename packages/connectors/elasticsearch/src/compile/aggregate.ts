import {
  checkAggregationField,
  checkAggregationKind,
  checkBucketSize,
  checkInterval,
  redactionFor,
} from '@tollgate/core';
import type { AggregationKind, CompileContext, CompiledRequest, FieldType } from '@tollgate/core';

import { isNumericType } from '../kind/model.js';
import { esSpec } from '../kind/spec.js';
import type { EsAggregation, EsSearchRequest } from '../native.js';
import { boolQuery, compileFilters, declaredField } from './filters.js';
import { TRACK_TOTAL_HITS } from './read.js';
import { compiledRequest } from './request.js';
import { checkKeys, own, Violations } from '@tollgate/core';

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
    const kind = checkAggregationKind(own(spec, 'kind'), violations);
    if (kind !== undefined) {
      field = String(own(spec, 'field'));
      aggregation = compileAggregation(kind, spec, ctx, violations);
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
  const field = checkAggregationField(
    own(spec, 'field'),
    kind,
    aggregatableFields(ctx, kind),
    violations,
  );
  const size = checkBucketSize(
    own(spec, 'size'),
    kind === 'terms',
    'size applies to terms aggregations only',
    violations,
  );
  const interval = checkInterval(own(spec, 'interval'), kind, violations);
  if (field === undefined) return undefined;
  switch (kind) {
    case 'terms':
      return { terms: { field, size } };
    case 'date_histogram':
      return { date_histogram: { field, calendar_interval: String(interval), min_doc_count: 1 } };
    case 'stats':
      return { stats: { field } };
    case 'cardinality':
      return { cardinality: { field } };
  }
}
