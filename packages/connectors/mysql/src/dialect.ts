import { createRequire } from 'node:module';
import { integerAsString } from '@tollgate/connector-sql';
import type { CalendarInterval, SqlColumnType, SqlDialect } from '@tollgate/connector-sql';

const require = createRequire(import.meta.url);
let dialect: SqlDialect | undefined;

/** A collation that tells case apart (`utf8mb4_bin`, `utf8mb4_0900_as_cs`), as discovery notes it. */
const CASE_SENSITIVE = /\bCOLLATE \S*_(bin|cs)$/i;
/** MySQL's most precise exact type: a checked decimal fits it without rounding. */
const WIDEST_DECIMAL = 'DECIMAL(65,30)';

/**
 * The bind placeholder, cast where the server would otherwise compare imprecisely: a string
 * compared with a BIGINT or DECIMAL column is compared as a double, so 64-bit integers and
 * decimals (which travel as strings) are cast to the column's exact type.
 */
function parameter(_index: number, type: SqlColumnType): string {
  if (type.class === 'integer' && integerAsString(type))
    return type.unsigned === true ? 'CAST(? AS UNSIGNED)' : 'CAST(? AS SIGNED)';
  if (type.class === 'decimal') {
    const exact =
      type.precision !== undefined && type.precision <= 65 && (type.scale ?? 0) <= 30
        ? `DECIMAL(${type.precision},${type.scale ?? 0})`
        : WIDEST_DECIMAL;
    return `CAST(? AS ${exact})`;
  }
  return '?';
}

/** `column` truncated to its interval, as a DATE for date columns and a DATETIME otherwise. */
function truncateDate(column: string, interval: CalendarInterval, type: SqlColumnType): string {
  const monday = `DATE(${column}) - INTERVAL WEEKDAY(${column}) DAY`;
  if (type.class === 'date') {
    switch (interval) {
      case 'week':
        return `(${monday})`;
      case 'month':
        return `CAST(DATE_FORMAT(${column}, '%Y-%m-01') AS DATE)`;
      case 'year':
        return `CAST(DATE_FORMAT(${column}, '%Y-01-01') AS DATE)`;
      default:
        return column;
    }
  }
  const start = {
    hour: `DATE_FORMAT(${column}, '%Y-%m-%d %H:00:00')`,
    day: `DATE(${column})`,
    week: monday,
    month: `DATE_FORMAT(${column}, '%Y-%m-01')`,
    year: `DATE_FORMAT(${column}, '%Y-01-01')`,
  }[interval];
  return `CAST(${start} AS DATETIME)`;
}

/**
 * MySQL and MariaDB: `?` parameters (cast to exact types where needed), `LIKE` under the
 * column's collation (lower-cased on both sides when the collation tells case apart), nulls
 * ordered explicitly (the server puts them first ascending), no `RETURNING` (the insert id is
 * read from the result); identifiers quoted by `mysql2`'s own `escapeId`, one name at a time
 * (a dot is part of the name, never a qualifier).
 */
export function mysqlDialect(): SqlDialect {
  if (dialect !== undefined) return dialect;
  const { escapeId } = require('mysql2') as {
    escapeId(name: string, forbidQualified: boolean): string;
  };
  dialect = {
    name: 'MySQL',
    quoteIdentifier: (name) => escapeId(name, true),
    parameter,
    caseInsensitiveLike: (column, placeholder, type) =>
      CASE_SENSITIVE.test(type.native)
        ? `LOWER(${column}) LIKE LOWER(${placeholder})`
        : `${column} LIKE ${placeholder}`,
    orderKey: (column, order, nullable) => {
      const direction = order === 'asc' ? 'ASC' : 'DESC';
      if (!nullable) return `${column} ${direction}`;
      return `${column} IS NULL ${direction}, ${column} ${direction}`;
    },
    truncateDate,
    returning: false,
  };
  return dialect;
}
