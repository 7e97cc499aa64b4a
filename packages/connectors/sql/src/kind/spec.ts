/**
 * The `spec` parts the SQL kinds share. Each kind's own `spec.ts` puts them
 * together under its `type`; its published schema is generated from those types, JSDoc included.
 */
import type { Description } from '@tollgate/core';

/**
 * How a column's values travel in JSON (the field's `type`); discovery maps native types onto
 * these: `string` (char, varchar, text, enum), `integer` (64-bit ones as decimal strings),
 * `number` (floating point), `decimal` (exact numerics, as strings), `datetime` (ISO 8601),
 * `date`, `boolean`, `uuid`, `json` (returned as objects), `binary` (never returned unless
 * declared), `array` (of `column.element`), `other` (returned as the server renders it only).
 */
export type SqlFieldType =
  | 'string'
  | 'integer'
  | 'number'
  | 'decimal'
  | 'datetime'
  | 'date'
  | 'boolean'
  | 'uuid'
  | 'json'
  | 'binary'
  | 'array'
  | 'other';

/** The element type of an array column. */
export interface SqlElementType {
  class: Exclude<SqlFieldType, 'array'>;
  /**
   * @minLength 1
   * @maxLength 200
   */
  native?: string;
  /**
   * @asType integer
   * @minimum 8
   * @maximum 64
   */
  bits?: number;
  unsigned?: boolean;
  /**
   * @asType integer
   * @minimum 1
   * @maximum 1000
   */
  precision?: number;
  /**
   * @asType integer
   * @minimum 0
   * @maximum 1000
   */
  scale?: number;
  enum?: string[];
  timeZone?: boolean;
}

/**
 * What the catalog says about a column. Discovery fills it in and is authoritative for it; an
 * operator writes it only for what discovery cannot see (the key of a view).
 */
export interface SqlColumnFacts {
  /**
   * The type as the server names it, e.g. `numeric(12,2)`.
   * @minLength 1
   * @maxLength 200
   */
  native?: string;
  /**
   * Integer width: 8, 16, 24, 32 or 64 (64-bit values travel as decimal strings).
   * @asType integer
   * @minimum 8
   * @maximum 64
   */
  bits?: number;
  /** No negative values (an `UNSIGNED` integer). */
  unsigned?: boolean;
  /**
   * Total digits of a decimal column.
   * @asType integer
   * @minimum 1
   * @maximum 1000
   */
  precision?: number;
  /**
   * Digits after the point of a decimal column.
   * @asType integer
   * @minimum 0
   * @maximum 1000
   */
  scale?: number;
  /**
   * Most characters of a string column.
   * @asType integer
   * @minimum 1
   */
  maxLength?: number;
  /** The only values of an enum column, in declaration order. */
  enum?: string[];
  /** A date-time column holds instants (a timestamp with time zone), not local times. */
  timeZone?: boolean;
  /** The element type of an array column. */
  element?: SqlElementType;
  /** The column may hold NULL (assumed when not known). */
  nullable?: boolean;
  /**
   * Position of the column in the primary key, from 1.
   * @asType integer
   * @minimum 1
   * @maximum 32
   */
  primaryKey?: number;
  /** An index (or the primary key) starts with the column: filters and sorts on it are cheap. */
  indexed?: boolean;
}

/** A column as declared (and, after discovery, as merged). Capabilities default to false. */
export interface SqlField {
  type: SqlFieldType;
  description?: Description;
  /** May appear in `filters` (eq/in on strings and ids, eq on numbers, dates and booleans). */
  filterable?: boolean;
  /** May be returned to the agent. */
  returnable?: boolean;
  /** May be used in `sort`. */
  sortable?: boolean;
  /** Range operators (gt, gte, lt, lte, between); numeric, decimal and date columns only. */
  range?: boolean;
  /** `prefix` and `contains` (case-insensitive, wildcards taken literally); string columns only. */
  searchable?: boolean;
  /** May be used in aggregations (terms, stats, cardinality, date histograms). */
  aggregatable?: boolean;
  /** What the catalog says about the column. */
  column?: SqlColumnFacts;
}

/** Where a SQL resource connects: declared in the descriptor, never holding a secret. */
export interface SqlConnection {
  /**
   * Host name or address of the server, without scheme or port.
   * @pattern ^[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?$
   */
  host: string;
  /**
   * TCP port (default: the kind's usual port).
   * @asType integer
   * @minimum 1
   * @maximum 65535
   */
  port?: number;
  /**
   * The database to connect to.
   * @pattern ^[A-Za-z0-9_$-]{1,63}$
   */
  database: string;
  /**
   * The user, when the credential is a bare password.
   * @pattern ^[A-Za-z0-9_.@-]{1,63}$
   */
  user?: string;
  /**
   * Where the credential lives (`env://VAR`, `file:///path`, `vault://mount/path#key`): a
   * username and password, a bare password for `user`, or a DSN naming this host and database.
   * Never a literal secret.
   * @minLength 1
   */
  credentialRef?: string;
  /**
   * Statement timeout, ms (default 5000).
   * @asType integer
   * @minimum 100
   * @maximum 300000
   */
  timeoutMs?: number;
  /** `disable` (default), `require` (TLS, any certificate) or `verify` (TLS, verified). */
  tls?: 'disable' | 'require' | 'verify';
  /**
   * Most pooled connections per resource version (default 10).
   * @asType integer
   * @minimum 1
   * @maximum 100
   */
  maxConnections?: number;
}

/** The table or view a resource reads. */
export interface SqlTarget {
  /**
   * The schema (or database) holding the table (default: the kind's, e.g. `public`).
   * @pattern ^[A-Za-z_][A-Za-z0-9_$]{0,62}$
   */
  schema?: string;
  /**
   * The table or view.
   * @pattern ^[A-Za-z_][A-Za-z0-9_$]{0,62}$
   */
  table: string;
}

/** Declared columns by name; discovery adds the catalog's facts and proposes the rest. */
export interface SqlSchema {
  fields: Record<string, SqlField>;
}
