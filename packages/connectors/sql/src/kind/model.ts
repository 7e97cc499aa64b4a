/**
 * SQL in the table family's words: what each column type is, how SQL speaks (patterns for
 * text, `is_null`, insert and update by primary key) and how rows are keyed. Both SQL kinds
 * share this model.
 */
import type { FieldSpec, FieldTraits, RecordKey, TableModel } from '@tollgate/core';

import type { SqlColumnType } from '../model.js';
import type { SqlColumnFacts, SqlField, SqlFieldType } from './spec.js';

const INTEGER_BOUNDS: Readonly<Record<number, [number, number]>> = {
  8: [-128, 127],
  16: [-32_768, 32_767],
  24: [-8_388_608, 8_388_607],
  32: [-2_147_483_648, 2_147_483_647],
};

/** The field types a SQL resource declares. */
export const SQL_FIELD_TYPES: readonly SqlFieldType[] = [
  'string',
  'integer',
  'number',
  'decimal',
  'datetime',
  'date',
  'boolean',
  'uuid',
  'json',
  'binary',
  'array',
  'other',
];

export function isSqlFieldType(type: unknown): type is SqlFieldType {
  return typeof type === 'string' && (SQL_FIELD_TYPES as readonly string[]).includes(type);
}

/**
 * The family's traits of a column type. Integers up to 32 bits are JSON integers within their
 * bounds; 64-bit (or unknown-width) ones are decimals, carried as strings so no digit is lost.
 */
export function traitsOfType(
  type: Pick<SqlColumnType, 'class' | 'bits' | 'unsigned' | 'enum'>,
  nullable: boolean,
): FieldTraits {
  const base = nullable ? { nullable: true } : {};
  switch (type.class) {
    case 'string':
      return type.enum !== undefined && type.enum.length > 0
        ? { valueClass: 'exact', enum: type.enum, ...base }
        : { valueClass: 'exact', ...base };
    case 'integer': {
      const bounds = type.bits === undefined ? undefined : INTEGER_BOUNDS[type.bits];
      if (bounds === undefined) return { valueClass: 'decimal', ...base };
      const [min, max] = type.unsigned === true ? [0, 2 ** type.bits! - 1] : bounds;
      return { valueClass: 'integer', minimum: min, maximum: max, ...base };
    }
    case 'number':
    case 'decimal':
    case 'datetime':
    case 'date':
    case 'boolean':
    case 'uuid':
    case 'json':
      return { valueClass: type.class, ...base };
    default:
      return { valueClass: 'opaque', ...base };
  }
}

function factsOf(field: FieldSpec): SqlColumnFacts {
  const column = (field as unknown as SqlField).column;
  return column !== null && typeof column === 'object' ? column : {};
}

/** The traits of a declared field; undefined for a type this kind does not know. */
export function sqlTraits(field: FieldSpec): FieldTraits | undefined {
  if (!isSqlFieldType(field.type)) return undefined;
  const facts = factsOf(field);
  const nullable = facts.nullable !== false;
  if (field.type === 'array') {
    const element = facts.element;
    const traits =
      element === undefined
        ? ({ valueClass: 'opaque' } as FieldTraits)
        : traitsOfType(element, false);
    return { ...traits, array: true, ...(nullable ? { nullable } : {}) };
  }
  return traitsOfType(
    {
      class: field.type,
      ...(facts.bits === undefined ? {} : { bits: facts.bits }),
      ...(facts.unsigned === undefined ? {} : { unsigned: facts.unsigned }),
      ...(facts.enum === undefined ? {} : { enum: facts.enum }),
    },
    nullable,
  );
}

/** The primary key columns in key order, from the fields' `column.primaryKey` positions. */
export function primaryKeyOf(fields: Readonly<Record<string, FieldSpec>>): string[] {
  return Object.keys(fields)
    .flatMap((name) => {
      const position = factsOf(Object.getOwnPropertyDescriptor(fields, name)?.value).primaryKey;
      return typeof position === 'number' ? [[name, position] as const] : [];
    })
    .sort((a, b) => a[1] - b[1])
    .map(([name]) => name);
}

export const sqlTableModel: TableModel = {
  dialect: {
    record: 'row',
    textSearch: 'patterns',
    presence: 'is_null',
    writes: 'insert_update',
    writePayload: 'values',
  },
  traitsOf: sqlTraits,
  key: (fields): RecordKey => ({ kind: 'columns', columns: primaryKeyOf(fields) }),
  capabilityHints: {
    filterable:
      'filterable is for string, integer, number, decimal, date, boolean and uuid columns',
    sortable: 'sortable is for string, integer, number, decimal, date, boolean and uuid columns',
    aggregatable:
      'aggregatable is for string, integer, number, decimal, date, boolean and uuid columns',
    range: 'range is for integer, number, decimal and date columns',
    searchable: 'searchable is for string columns',
  },
};

/** Types that admit the same operators: a declared/discovered difference is only a warning. */
export function sqlFieldFamily(type: string): string {
  if (type === 'integer' || type === 'number' || type === 'decimal') return 'numeric';
  if (type === 'datetime' || type === 'date') return 'temporal';
  return type;
}
