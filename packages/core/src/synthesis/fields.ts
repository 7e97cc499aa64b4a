/**
 * What each field type can do in a tool: the filter operators it gets (pruned by its declared
 * capabilities), the JSON Schema of its values, whether it sorts, and which aggregations apply.
 */
import type { FieldSpec, FieldType } from '../descriptor/types.js';
import type { AggregationKind, FilterOp, JsonSchema } from '../tools/types.js';
import type { SynthesisLimits } from './limits.js';

/** Field types grouped by how tools treat them. */
export type FieldClass =
  | 'keyword'
  | 'text'
  | 'integer'
  | 'number'
  | 'date'
  | 'boolean'
  | 'ip'
  | 'geo_point'
  | 'structured';

const CLASS_OF: Record<FieldType, FieldClass> = {
  keyword: 'keyword',
  text: 'text',
  long: 'integer',
  integer: 'integer',
  short: 'integer',
  byte: 'integer',
  unsigned_long: 'integer',
  double: 'number',
  float: 'number',
  half_float: 'number',
  scaled_float: 'number',
  date: 'date',
  boolean: 'boolean',
  ip: 'ip',
  geo_point: 'geo_point',
  object: 'structured',
  nested: 'structured',
};

/** Integer ranges of the bounded types (any integer beyond ±2^53 is refused at validation). */
const INTEGER_BOUNDS: Partial<Record<FieldType, { minimum: number; maximum?: number }>> = {
  byte: { minimum: -128, maximum: 127 },
  short: { minimum: -32_768, maximum: 32_767 },
  integer: { minimum: -2_147_483_648, maximum: 2_147_483_647 },
  unsigned_long: { minimum: 0 },
};

/** Operators in the order schemas list them. */
export const RANGE_OPS: readonly FilterOp[] = ['gt', 'gte', 'lt', 'lte'];

export function fieldClass(type: FieldType): FieldClass {
  return CLASS_OF[type];
}

/** One filter branch's operators and value schema; no value schema means the op takes none. */
export interface FilterGroup {
  ops: FilterOp[];
  value?: JsonSchema;
}

/** The JSON Schema of one value of the field, as a filter compares it. */
export function scalarSchema(spec: FieldSpec, limits: SynthesisLimits): JsonSchema | undefined {
  switch (fieldClass(spec.type)) {
    case 'keyword':
    case 'text':
      return { type: 'string', maxLength: limits.maxStringLength };
    case 'ip':
      return {
        anyOf: [
          { type: 'string', format: 'ipv4' },
          { type: 'string', format: 'ipv6' },
        ],
      };
    case 'integer':
      return { type: 'integer', ...INTEGER_BOUNDS[spec.type] };
    case 'number':
      return { type: 'number' };
    case 'date':
      return { type: 'string', format: 'date-time' };
    case 'boolean':
      return { type: 'boolean' };
    default:
      return undefined;
  }
}

/**
 * Filter branches for a field the principal may filter on: keyword/ip get eq, in, exists;
 * numbers and dates get eq (filterable) and gt/gte/lt/lte/between (range); searchable text
 * gets match; booleans get eq. Other types, and missing capabilities, get nothing.
 */
export function filterGroups(spec: FieldSpec, limits: SynthesisLimits): FilterGroup[] {
  const scalar = scalarSchema(spec, limits);
  if (scalar === undefined) return [];
  switch (fieldClass(spec.type)) {
    case 'keyword':
    case 'ip':
      if (spec.filterable !== true) return [];
      return [
        { ops: ['eq'], value: scalar },
        { ops: ['in'], value: arrayOf(scalar, 1, limits.maxInValues) },
        { ops: ['exists'] },
      ];
    case 'integer':
    case 'number':
    case 'date': {
      const ops: FilterOp[] = [
        ...(spec.filterable === true ? (['eq'] as const) : []),
        ...(spec.range === true ? RANGE_OPS : []),
      ];
      const groups: FilterGroup[] = ops.length > 0 ? [{ ops, value: scalar }] : [];
      if (spec.range === true) groups.push({ ops: ['between'], value: arrayOf(scalar, 2, 2) });
      return groups;
    }
    case 'text':
      return spec.searchable === true ? [{ ops: ['match'], value: scalar }] : [];
    case 'boolean':
      return spec.filterable === true ? [{ ops: ['eq'], value: scalar }] : [];
    default:
      return [];
  }
}

/** Whether the field may be used in `sort` (declared sortable and of a sortable type). */
export function isSortable(spec: FieldSpec): boolean {
  const cls = fieldClass(spec.type);
  return spec.sortable === true && cls !== 'text' && cls !== 'structured' && cls !== 'geo_point';
}

/** The aggregations a declared-aggregatable field supports. */
export function aggregationKinds(spec: FieldSpec): AggregationKind[] {
  if (spec.aggregatable !== true) return [];
  switch (fieldClass(spec.type)) {
    case 'keyword':
    case 'ip':
      return ['terms', 'cardinality'];
    case 'boolean':
      return ['terms'];
    case 'integer':
    case 'number':
      return ['terms', 'stats', 'cardinality'];
    case 'date':
      return ['date_histogram', 'cardinality'];
    default:
      return [];
  }
}

/**
 * The schema of the field in a written document (nullable: null leaves it unchanged). Object,
 * nested and geo_point fields are not writable: no free-form objects reach a tool.
 */
export function documentSchema(spec: FieldSpec, limits: SynthesisLimits): JsonSchema | undefined {
  const scalar =
    fieldClass(spec.type) === 'text'
      ? { type: 'string', maxLength: limits.maxTextLength }
      : scalarSchema(spec, limits);
  return scalar === undefined ? undefined : nullable(scalar);
}

/** The same schema admitting `null` too (`type: [T, "null"]`, or a null branch of an anyOf). */
export function nullable(schema: JsonSchema): JsonSchema {
  const { type, anyOf, ...rest } = schema;
  if (Array.isArray(anyOf)) return { anyOf: [...anyOf, { type: 'null' }], ...rest };
  return { type: [type as string, 'null'], ...rest };
}

function arrayOf(items: JsonSchema, minItems: number, maxItems: number): JsonSchema {
  return { type: 'array', items, minItems, maxItems };
}
