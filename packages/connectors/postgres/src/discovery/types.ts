import type { SqlColumnType } from '@tollgate/connector-sql';

/** A column's type as the PostgreSQL catalog describes it. */
export interface PgCatalogType {
  /** `format_type(atttypid, atttypmod)`, e.g. `numeric(12,2)`. */
  formatted: string;
  /** Base type name (`pg_type.typname`, domains resolved), e.g. `int8`, `timestamptz`. */
  typname: string;
  /** `e` for enums, `b` base, `d` domain, … */
  typtype: string;
  /** For arrays: the element's base type name and kind. */
  element?: { typname: string; typtype: string; formatted: string; enumValues?: string[] };
  enumValues?: string[];
}

const INTEGER_BITS: Record<string, number> = { int2: 16, int4: 32, int8: 64 };
const STRINGS = new Set(['text', 'varchar', 'bpchar', 'name', 'citext', 'char']);

/** Maps a PostgreSQL type onto the SQL core's classes, keeping precision and bounds. */
export function pgColumnType(type: PgCatalogType): SqlColumnType {
  const native = type.formatted;
  if (type.element !== undefined) {
    return {
      class: 'array',
      native,
      element: pgColumnType({ ...type.element, formatted: type.element.formatted }),
    };
  }
  if (type.typtype === 'e') return { class: 'string', native, enum: type.enumValues ?? [] };
  const bits = INTEGER_BITS[type.typname];
  if (bits !== undefined) return { class: 'integer', native, bits };
  const modifier = /\((\d+)(?:,(\d+))?\)/.exec(native);
  switch (type.typname) {
    case 'float4':
    case 'float8':
      return { class: 'number', native };
    case 'numeric':
      return modifier === null
        ? { class: 'decimal', native }
        : {
            class: 'decimal',
            native,
            precision: Number(modifier[1]),
            scale: Number(modifier[2] ?? 0),
          };
    case 'bool':
      return { class: 'boolean', native };
    case 'date':
      return { class: 'date', native };
    case 'timestamp':
      return { class: 'datetime', native, timeZone: false };
    case 'timestamptz':
      return { class: 'datetime', native, timeZone: true };
    case 'uuid':
      return { class: 'uuid', native };
    case 'json':
    case 'jsonb':
      return { class: 'json', native };
    case 'bytea':
      return { class: 'binary', native };
    default:
      if (STRINGS.has(type.typname)) {
        return modifier === null || type.typname === 'name'
          ? { class: 'string', native }
          : { class: 'string', native, maxLength: Number(modifier[1]) };
      }
      return { class: 'other', native };
  }
}
