import type { FieldSpec, FieldType } from '../descriptor/types.js';
import type { FilterOp } from '../tools/types.js';

const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set<FieldType>([
  'long',
  'integer',
  'short',
  'byte',
  'double',
  'float',
  'half_float',
  'scaled_float',
  'unsigned_long',
]);

/** long, integer, short, byte, double, float, half_float, scaled_float, unsigned_long. */
export function isNumericType(type: FieldType): boolean {
  return NUMERIC_TYPES.has(type);
}

/** Numeric or date: the types that admit range operators. */
export function isOrderedType(type: FieldType): boolean {
  return type === 'date' || NUMERIC_TYPES.has(type);
}

const RANGE_OPS: FilterOp[] = ['gt', 'gte', 'lt', 'lte', 'between'];

/**
 * The filter operators a field admits, from its type and capabilities (the same pruning tool
 * synthesis applies): keyword and ip — eq, in, exists (filterable); numeric and date — eq,
 * exists (filterable) and gt, gte, lt, lte, between (range); boolean — eq (filterable);
 * text — match (searchable). Object, nested and geo_point fields admit none.
 */
export function filterOpsFor(spec: FieldSpec): FilterOp[] {
  if (spec.type === 'keyword' || spec.type === 'ip') {
    return spec.filterable === true ? ['eq', 'in', 'exists'] : [];
  }
  if (isOrderedType(spec.type)) {
    const ops: FilterOp[] = spec.filterable === true ? ['eq', 'exists'] : [];
    return spec.range === true ? [...ops, ...RANGE_OPS] : ops;
  }
  if (spec.type === 'boolean') return spec.filterable === true ? ['eq'] : [];
  if (spec.type === 'text') return spec.searchable === true ? ['match'] : [];
  return [];
}
