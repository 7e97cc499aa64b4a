/**
 * Elasticsearch in the table family's words: what each field type is, how the search API
 * speaks (full-text `match`, `exists`, upserts by document id) and how records are named.
 */
import type { FieldSpec, FieldTraits, TableModel } from '@tollgate/core';
import type { ElasticsearchFieldType } from './spec.js';

const TRAITS: Readonly<Record<ElasticsearchFieldType, FieldTraits>> = {
  keyword: { valueClass: 'exact' },
  text: { valueClass: 'text' },
  long: { valueClass: 'integer' },
  integer: { valueClass: 'integer', minimum: -2_147_483_648, maximum: 2_147_483_647 },
  short: { valueClass: 'integer', minimum: -32_768, maximum: 32_767 },
  byte: { valueClass: 'integer', minimum: -128, maximum: 127 },
  unsigned_long: { valueClass: 'integer', minimum: 0 },
  double: { valueClass: 'number' },
  float: { valueClass: 'number' },
  half_float: { valueClass: 'number' },
  scaled_float: { valueClass: 'number' },
  date: { valueClass: 'datetime' },
  boolean: { valueClass: 'boolean' },
  ip: { valueClass: 'ip' },
  geo_point: { valueClass: 'opaque' },
  object: { valueClass: 'structured' },
  nested: { valueClass: 'structured' },
};

/** The field types this kind declares. */
export const FIELD_TYPES = Object.keys(TRAITS) as ElasticsearchFieldType[];

export function isFieldType(type: string): type is ElasticsearchFieldType {
  return Object.hasOwn(TRAITS, type);
}

export const NUMERIC_TYPES: ReadonlySet<string> = new Set(
  FIELD_TYPES.filter((type) => {
    const cls = TRAITS[type].valueClass;
    return cls === 'integer' || cls === 'number';
  }),
);

export const elasticsearchModel: TableModel = {
  dialect: {
    record: 'document',
    textSearch: 'match',
    presence: 'exists',
    writes: 'upsert',
    writePayload: 'document',
  },
  traitsOf: (field: FieldSpec) => (isFieldType(field.type) ? TRAITS[field.type] : undefined),
  key: () => ({ kind: 'record_id' }),
  capabilityHints: {
    filterable: 'filterable is for keyword, numeric, date, boolean and ip fields',
    sortable: 'sortable is for keyword, numeric, date, boolean and ip fields',
    aggregatable: 'aggregatable is for keyword, numeric, date, boolean and ip fields',
    range: 'range is for numeric and date fields',
    searchable: 'searchable is for text fields',
  },
};

/** long, integer, short, byte, double, float, half_float, scaled_float, unsigned_long. */
export function isNumericType(type: string): boolean {
  return NUMERIC_TYPES.has(type);
}

/** Numeric or date: the types that admit range operators. */
export function isOrderedType(type: string): boolean {
  return type === 'date' || NUMERIC_TYPES.has(type);
}

/** Types that admit the same operators, so a declared/discovered difference is only a warning. */
export function fieldFamily(type: string): string {
  if (NUMERIC_TYPES.has(type)) return 'numeric';
  if (type === 'keyword' || type === 'ip') return 'term';
  return type;
}
