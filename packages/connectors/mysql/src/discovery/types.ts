import type { SqlColumnType } from '@tollgate/connector-sql';
import { parseEnumValues } from '@tollgate/connector-sql';

/** A column's type as information_schema.COLUMNS describes it. */
export interface MysqlCatalogType {
  /** `DATA_TYPE`, e.g. `bigint`, `varchar`, `longtext`. */
  dataType: string;
  /** `COLUMN_TYPE`, e.g. `bigint(20) unsigned`, `enum('a','b')`, `tinyint(1)`. */
  columnType: string;
  maxLength?: number;
  precision?: number;
  scale?: number;
  /** `COLLATION_NAME` of text columns. */
  collation?: string;
  /** A `json_valid(col)` check holds on the column (MariaDB's JSON). */
  json?: boolean;
}

const INTEGER_BITS: Record<string, number> = {
  tinyint: 8,
  smallint: 16,
  mediumint: 24,
  int: 32,
  integer: 32,
  bigint: 64,
};
const TEXTS = new Set(['char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext']);
const BINARIES = new Set([
  'binary',
  'varbinary',
  'tinyblob',
  'blob',
  'mediumblob',
  'longblob',
  'bit',
]);

/**
 * Maps a MySQL or MariaDB column type onto the SQL core's classes, keeping precision and
 * bounds: `tinyint(1)` is a boolean (what `BOOLEAN` declares), unsigned integers keep their
 * range, `TIMESTAMP` holds instants (sessions run in UTC) and `DATETIME` local times. A
 * collation that tells case apart is kept in `native`, so text search can account for it.
 */
export function mysqlColumnType(type: MysqlCatalogType): SqlColumnType {
  const dataType = type.dataType.toLowerCase();
  const columnType = type.columnType.toLowerCase();
  const native = type.columnType;
  const bits = INTEGER_BITS[dataType];
  if (bits !== undefined) {
    if (bits === 8 && /^tinyint\(1\)/.test(columnType)) return { class: 'boolean', native };
    return /\bunsigned\b/.test(columnType)
      ? { class: 'integer', native, bits, unsigned: true }
      : { class: 'integer', native, bits };
  }
  if (type.json === true || dataType === 'json') return { class: 'json', native: 'json' };
  if (TEXTS.has(dataType)) {
    const collation =
      type.collation !== undefined && /_(bin|cs)$/i.test(type.collation)
        ? ` COLLATE ${type.collation}`
        : '';
    return {
      class: 'string',
      native: `${native}${collation}`,
      ...(type.maxLength === undefined ? {} : { maxLength: type.maxLength }),
    };
  }
  switch (dataType) {
    case 'enum':
      return { class: 'string', native, enum: parseEnumValues(type.columnType) ?? [] };
    case 'decimal':
    case 'numeric':
      return {
        class: 'decimal',
        native,
        ...(type.precision === undefined
          ? {}
          : { precision: type.precision, scale: type.scale ?? 0 }),
      };
    case 'float':
    case 'double':
    case 'real':
      return { class: 'number', native };
    case 'date':
      return { class: 'date', native };
    case 'datetime':
      return { class: 'datetime', native, timeZone: false };
    case 'timestamp':
      return { class: 'datetime', native, timeZone: true };
    case 'year':
      return { class: 'integer', native, bits: 16, unsigned: true };
    case 'uuid':
      return { class: 'uuid', native };
    default:
      if (BINARIES.has(dataType)) return { class: 'binary', native };
      // set, time, geometry types, inet4/inet6 and the like.
      return { class: 'other', native };
  }
}
