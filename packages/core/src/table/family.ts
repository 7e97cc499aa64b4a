/**
 * The table family: kinds whose resources are collections of records with declared fields
 * (an index, a table, a view) share one set of operations — search, get, count, aggregate and
 * writes — and one way of building their tools. A table kind says, in the family's
 * kind-neutral words, what each of its field types is (`FieldTraits`) and how its data system
 * speaks (`TableDialect`); the family does the rest.
 */
import type { FieldSpec } from '../descriptor/types.js';

/**
 * How tools treat a field's values, whatever the kind calls its type.
 * - `exact`: strings compared whole (identifiers, codes, statuses);
 * - `text`: prose, for text search only;
 * - `integer`, `number`: JSON numbers (integers within their bounds);
 * - `decimal`: exact decimals and 64-bit integers, carried as strings so no digit is lost;
 * - `datetime` (ISO-8601 date-time), `date` (ISO-8601 date), `boolean`, `ip`, `uuid`;
 * - `json`: a structured value returned as it is, never filtered;
 * - `structured`: an object whose declared subfields are the usable fields;
 * - `opaque`: bytes, shapes and other values tools cannot compare (returnable at most).
 */
export type ValueClass =
  | 'exact'
  | 'text'
  | 'integer'
  | 'number'
  | 'decimal'
  | 'datetime'
  | 'date'
  | 'boolean'
  | 'ip'
  | 'uuid'
  | 'json'
  | 'structured'
  | 'opaque';

/** What the family needs to know about one declared field. */
export interface FieldTraits {
  valueClass: ValueClass;
  /** Bounds of an `integer` field. */
  minimum?: number;
  maximum?: number;
  /** The only values an `exact` field holds (an enum type). */
  enum?: readonly string[];
  /** The field may hold null: presence is asked with `is_null` where the dialect has it. */
  nullable?: boolean;
  /** Values are arrays of the class (returned as arrays; not filtered, sorted or aggregated). */
  array?: boolean;
}

/** How a record is identified by `get` and the writes that name one. */
export type RecordKey =
  /** A key the data system assigns (a document id): `id`, a string. */
  | { kind: 'record_id' }
  /** Primary-key columns: `id` typed as the column when there is one, else `key` of them all. */
  | { kind: 'columns'; columns: readonly string[] };

/** The writes a table kind offers on resources declared `readonly: false`. */
export type TableWrite =
  /** `write`: create or update the record with this id, setting the given fields. */
  | 'upsert'
  /** `insert`: add a record; `update`: change fields of the record with this key. */
  | 'insert_update';

/** How a table kind's data system speaks, in the family's words. */
export interface TableDialect {
  /** One record, for descriptions: `document`, `row`. */
  record: string;
  /** What `searchable` grants: full-text `match` on text, or `prefix`/`contains` patterns. */
  textSearch: 'match' | 'patterns';
  /** How presence is asked: `exists` (has a value) or `is_null` (true/false), or not at all. */
  presence: 'exists' | 'is_null' | 'none';
  writes: TableWrite;
  /** The object written records carry their fields in: `document`, `values`. */
  writePayload: string;
}

/** A table kind's two contributions to the family. */
export interface TableModel {
  dialect: TableDialect;
  /**
   * The traits of a declared field; undefined when its type is not one the kind knows (the
   * kind's schema reports that). Called on validated specs everywhere but in `specRules`.
   */
  traitsOf(field: FieldSpec): FieldTraits | undefined;
  /** How records of this resource are identified. */
  key(fields: Readonly<Record<string, FieldSpec>>): RecordKey;
  /**
   * What each capability is for, in the kind's own words, for operators who declare one on a
   * field it does not fit (`filterable is for keyword, numeric, date, boolean and ip fields`).
   */
  capabilityHints?: Partial<
    Record<'filterable' | 'sortable' | 'aggregatable' | 'range' | 'searchable', string>
  >;
}

/** The traits of a validated field; a type the kind does not know is opaque. */
export function traitsOrOpaque(model: TableModel, field: FieldSpec): FieldTraits {
  return model.traitsOf(field) ?? { valueClass: 'opaque' };
}

/** Classes a filter can compare exactly (eq, in), sort and aggregate. */
const SCALAR: ReadonlySet<ValueClass> = new Set([
  'exact',
  'integer',
  'number',
  'decimal',
  'datetime',
  'date',
  'boolean',
  'ip',
  'uuid',
]);

/** Classes with an order: ranges apply. */
const ORDERED: ReadonlySet<ValueClass> = new Set([
  'integer',
  'number',
  'decimal',
  'datetime',
  'date',
]);

export function isScalarClass(traits: FieldTraits): boolean {
  return traits.array !== true && SCALAR.has(traits.valueClass);
}

export function isOrderedClass(traits: FieldTraits): boolean {
  return traits.array !== true && ORDERED.has(traits.valueClass);
}

export function isNumericClass(traits: FieldTraits): boolean {
  return (
    traits.array !== true &&
    (traits.valueClass === 'integer' ||
      traits.valueClass === 'number' ||
      traits.valueClass === 'decimal')
  );
}

/** Classes text search applies to in this dialect. */
export function isSearchableClass(traits: FieldTraits, dialect: TableDialect): boolean {
  if (traits.array === true) return false;
  if (traits.valueClass === 'text') return true;
  return dialect.textSearch === 'patterns' && traits.valueClass === 'exact';
}
