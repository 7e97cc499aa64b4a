/**
 * What each field can do in a tool, from its traits and declared capabilities: the filter
 * operators it gets, the JSON Schema of its values, whether it sorts, which aggregations apply
 * and how it is written. Compilers re-check arguments with the same functions.
 */
import type { FieldSpec } from '../descriptor/types.js';
import type { SynthesisLimits } from '../synthesis/limits.js';
import type { JsonSchema } from '../tools/types.js';
import type { AggregationKind, FilterOp } from './args.js';
import { isNumericClass, isOrderedClass, isScalarClass, isSearchableClass } from './family.js';
import type { FieldTraits, TableDialect } from './family.js';

/** Range operators in the order schemas list them. */
export const RANGE_OPS: readonly FilterOp[] = ['gt', 'gte', 'lt', 'lte'];

/** Decimal numbers as strings: an optional sign, digits, an optional fraction. */
export const DECIMAL_PATTERN = '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$';

/** One filter branch's operators and value schema; no value schema means the op takes none. */
export interface FilterGroup {
  ops: FilterOp[];
  value?: JsonSchema;
}

/** The JSON Schema of one value of the field, as a filter compares it. */
export function scalarSchema(traits: FieldTraits, limits: SynthesisLimits): JsonSchema | undefined {
  if (traits.array === true) return undefined;
  switch (traits.valueClass) {
    case 'exact':
      return traits.enum !== undefined && traits.enum.length > 0
        ? { type: 'string', enum: [...traits.enum] }
        : { type: 'string', maxLength: limits.maxStringLength };
    case 'text':
      return { type: 'string', maxLength: limits.maxStringLength };
    case 'ip':
      return {
        anyOf: [
          { type: 'string', format: 'ipv4' },
          { type: 'string', format: 'ipv6' },
        ],
      };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'integer':
      return {
        type: 'integer',
        ...(traits.minimum === undefined ? {} : { minimum: traits.minimum }),
        ...(traits.maximum === undefined ? {} : { maximum: traits.maximum }),
      };
    case 'number':
      return { type: 'number' };
    case 'decimal':
      return {
        type: 'string',
        pattern: DECIMAL_PATTERN,
        maxLength: 80,
        description: 'A decimal number written as a string, e.g. "12.50".',
      };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'boolean':
      return { type: 'boolean' };
    default:
      return undefined;
  }
}

/**
 * Filter branches for a field the principal may filter on. Exact, ip and uuid values get eq and
 * in (filterable) and the dialect's presence test; ordered values get eq (filterable) and
 * gt/gte/lt/lte/between (range); booleans get eq; text search gets match (full-text dialects)
 * or prefix/contains (pattern dialects); nullable fields get `is_null` in dialects that ask
 * presence that way. Other classes, and missing capabilities, get nothing.
 */
export function filterGroups(
  spec: FieldSpec,
  traits: FieldTraits,
  dialect: TableDialect,
  limits: SynthesisLimits,
): FilterGroup[] {
  const scalar = scalarSchema(traits, limits);
  if (scalar === undefined) return [];
  const filterable = spec.filterable === true && isScalarClass(traits);
  const groups: FilterGroup[] = [];
  switch (traits.valueClass) {
    case 'exact':
    case 'ip':
    case 'uuid':
      if (filterable) {
        groups.push({ ops: ['eq'], value: scalar });
        groups.push({ ops: ['in'], value: arrayOf(scalar, 1, limits.maxInValues) });
      }
      break;
    case 'integer':
    case 'number':
    case 'decimal':
    case 'datetime':
    case 'date': {
      const ops: FilterOp[] = [
        ...(filterable ? (['eq'] as const) : []),
        ...(spec.range === true ? RANGE_OPS : []),
      ];
      if (ops.length > 0) groups.push({ ops, value: scalar });
      if (spec.range === true) groups.push({ ops: ['between'], value: arrayOf(scalar, 2, 2) });
      break;
    }
    case 'boolean':
      if (filterable) groups.push({ ops: ['eq'], value: scalar });
      break;
    default:
      break;
  }
  if (spec.searchable === true && isSearchableClass(traits, dialect)) {
    const text: JsonSchema = { type: 'string', maxLength: limits.maxStringLength };
    if (dialect.textSearch === 'match') groups.push({ ops: ['match'], value: text });
    else groups.push({ ops: ['prefix', 'contains'], value: { ...text, minLength: 1 } });
  }
  groups.push(...presenceGroups(traits, filterable, dialect));
  return groups;
}

function presenceGroups(
  traits: FieldTraits,
  filterable: boolean,
  dialect: TableDialect,
): FilterGroup[] {
  if (!filterable) return [];
  if (dialect.presence === 'exists') {
    const offered =
      traits.valueClass === 'exact' || traits.valueClass === 'ip' || traits.valueClass === 'uuid';
    return offered ? [{ ops: ['exists'] }] : [];
  }
  if (dialect.presence === 'is_null' && traits.nullable === true) {
    return [{ ops: ['is_null'], value: { type: 'boolean' } }];
  }
  return [];
}

/** Every operator a field admits, flattened (what compilers re-check a filter against). */
export function filterOpsOf(
  spec: FieldSpec,
  traits: FieldTraits,
  dialect: TableDialect,
  limits: SynthesisLimits,
): FilterOp[] {
  return filterGroups(spec, traits, dialect, limits).flatMap((group) => group.ops);
}

/** Whether the field may be used in `sort` (declared sortable and of a sortable class). */
export function isSortable(spec: FieldSpec, traits: FieldTraits): boolean {
  return spec.sortable === true && isScalarClass(traits);
}

/** The aggregations a declared-aggregatable field supports. */
export function aggregationKinds(spec: FieldSpec, traits: FieldTraits): AggregationKind[] {
  if (spec.aggregatable !== true || !isScalarClass(traits)) return [];
  if (traits.valueClass === 'boolean') return ['terms'];
  if (isNumericClass(traits)) return ['terms', 'stats', 'cardinality'];
  if (traits.valueClass === 'datetime' || traits.valueClass === 'date') {
    return ['date_histogram', 'cardinality'];
  }
  return ['terms', 'cardinality'];
}

/** True when range operators fit the field's class. */
export function admitsRange(traits: FieldTraits): boolean {
  return isOrderedClass(traits);
}

/**
 * The schema of the field in a written record (nullable: null leaves it unchanged). Json,
 * structured, array and opaque fields are not writable: no free-form values reach a tool.
 */
export function documentSchema(
  traits: FieldTraits,
  limits: SynthesisLimits,
): JsonSchema | undefined {
  const scalar =
    traits.valueClass === 'text'
      ? { type: 'string', maxLength: limits.maxTextLength }
      : scalarSchema(traits, limits);
  return scalar === undefined ? undefined : nullable(scalar);
}

/** The same schema admitting `null` too (`type: [T, "null"]`, or a null branch of an anyOf). */
export function nullable(schema: JsonSchema): JsonSchema {
  const { type, anyOf, enum: values, ...rest } = schema;
  if (Array.isArray(anyOf)) return { anyOf: [...anyOf, { type: 'null' }], ...rest };
  if (Array.isArray(values))
    return { type: [type as string, 'null'], enum: [...values, null], ...rest };
  return { type: [type as string, 'null'], ...rest };
}

function arrayOf(items: JsonSchema, minItems: number, maxItems: number): JsonSchema {
  return { type: 'array', items, minItems, maxItems };
}
