import type { CalendarInterval } from '@tollgate/core';

import type { SqlColumnType } from './model.js';

export type { CalendarInterval };

/**
 * What differs between SQL servers when compiling. Each kind supplies one, built on its
 * driver's own escaping; the SQL core never quotes an identifier or renders a value itself.
 */
export interface SqlDialect {
  /** The kind's name, for messages. */
  readonly name: string;
  /** Quotes an identifier with the driver's escaping (never by hand). */
  quoteIdentifier(name: string): string;
  /**
   * The SQL for bind parameter number `index` (1-based) holding a value of `type`, with a cast
   * when the server would otherwise compare it imprecisely (some servers compare strings to integers
   * as doubles).
   */
  parameter(index: number, type: SqlColumnType): string;
  /**
   * Case-insensitive pattern match: a case-insensitive operator, or a `LIKE` that accounts for
   * the column's collation (`type.native` names it where the server reports one).
   */
  caseInsensitiveLike(column: string, parameter: string, type: SqlColumnType): string;
  /**
   * One `ORDER BY` key with nulls sorted last ascending and first descending (the SQL standard's usual
   * default), so keyset pagination reads the same on every server.
   */
  orderKey(column: string, order: 'asc' | 'desc', nullable: boolean): string;
  /** `column` (of `type`) truncated to the start of its calendar `interval`, as a value of that type. */
  truncateDate(column: string, interval: CalendarInterval, type: SqlColumnType): string;
  /** Rows inserted are returned by `RETURNING` where the server has it; otherwise the key is read back. */
  readonly returning: boolean;
}
