/**
 * The SQL core's model of a table: columns with their value class (how values travel in JSON and
 * which operators they admit), the native type they came from, nullability, the primary key and
 * the indexes. Discovery builds it from the catalog; compile and shape read it. Plain data.
 */
import type { CapabilitySet } from '@tollgate/core';

import type { SqlColumnFacts, SqlFieldType } from './kind/spec.js';

/**
 * How a column's values travel in JSON:
 * - `string`: exact text (char, varchar, text, enum); eq/in, prefix/contains when searchable;
 * - `integer`: up to 32 bits a JSON integer, 64 bits a decimal string (JSON numbers lose them);
 * - `number`: binary floating point, a JSON number (`"NaN"`, `"Infinity"`, `"-Infinity"` as strings);
 * - `decimal`: exact numeric, always a decimal string so no digit is lost;
 * - `datetime`: ISO 8601 (`…Z` for time-zone-aware columns, no offset for local ones);
 * - `date`: `YYYY-MM-DD`; `boolean`; `uuid` (`format: uuid`);
 * - `json`: the parsed value; `binary`: base64, never returned unless declared;
 * - `array`: a JSON array of `element`;
 * - `other`: a type without a faithful mapping (interval, inet, geometry …), returned as the
 *   server renders it and never filtered on.
 */
export type SqlValueClass = SqlFieldType;

/**
 * A column's type as discovered: its class, the type as the server names it (e.g.
 * `numeric(12,2)`, `timestamp with time zone`) and what bounds its values, in the words of the
 * declared `column` facts.
 */
export interface SqlColumnType extends Pick<
  SqlColumnFacts,
  'bits' | 'unsigned' | 'precision' | 'scale' | 'maxLength' | 'enum' | 'timeZone'
> {
  class: SqlValueClass;
  native: string;
  /** array: the element type. */
  element?: SqlColumnType;
}

/** Capabilities an operator grants a column; all default to false. */
export type SqlCapabilities = Partial<CapabilitySet>;

/** One column as compile and shape see it: discovered type, nullability and granted capabilities. */
export interface SqlColumn extends SqlCapabilities {
  name: string;
  type: SqlColumnType;
  nullable: boolean;
  description?: string;
}

/** An index as discovery reads it: which columns, in which order, unique or not. */
export interface SqlIndex {
  name: string;
  columns: string[];
  unique: boolean;
  primary: boolean;
}

/** A table or view the resource targets, with everything compile needs to know about it. */
export interface SqlTable {
  /** Schema (or database); absent means the connection's default. */
  schema?: string;
  name: string;
  kind: 'table' | 'view';
  /** Columns by name (`Map`, so a column named `__proto__` stays an ordinary key). */
  columns: ReadonlyMap<string, SqlColumn>;
  /** Primary key columns in key order; empty for views and keyless tables. */
  primaryKey: string[];
}

/** The principal attribute a row filter pins a column to, resolved for one call. */
export interface PinnedRow {
  column: string;
  value: string;
}
