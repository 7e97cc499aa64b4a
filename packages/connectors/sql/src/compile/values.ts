import type { SqlColumnType } from '../model.js';
import type { SqlParameter } from '../native.js';
import type { Violations } from '@tollgate/core';

/** Longest string a filter value may be. */
export const MAX_FILTER_STRING = 256;
/** Longest string a written value may be (a column's own limit applies below this). */
export const MAX_WRITE_STRING = 8192;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const INTEGER_TEXT = /^-?(0|[1-9][0-9]{0,19})$/;
const DECIMAL_TEXT = /^-?([0-9]{1,131})(?:\.([0-9]{1,100}))?$/;
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:\d{2})?$/;

/** The inclusive bounds of an integer column, as bigints. */
export function integerBounds(type: SqlColumnType): [bigint, bigint] {
  const bits = BigInt(type.bits ?? 32);
  if (type.unsigned === true) return [0n, bits >= 64n ? UINT64_MAX : 2n ** bits - 1n];
  if (bits >= 64n) return [INT64_MIN, INT64_MAX];
  return [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n];
}

/** True when values of this integer column travel as decimal strings (beyond 2^53). */
export function integerAsString(type: SqlColumnType): boolean {
  const [low, high] = integerBounds(type);
  return low < BigInt(Number.MIN_SAFE_INTEGER) || high > BigInt(Number.MAX_SAFE_INTEGER);
}

/** What a value of this type must look like, in words, for error details. */
export function expectedValue(type: SqlColumnType, maxString: number): string {
  switch (type.class) {
    case 'integer': {
      const [low, high] = integerBounds(type);
      return integerAsString(type)
        ? `integer from ${low} to ${high}, as a JSON integer or a decimal string`
        : `integer from ${low} to ${high}`;
    }
    case 'number':
      return 'finite number';
    case 'decimal':
      return decimalExpectation(type);
    case 'datetime':
      return type.timeZone === true
        ? 'ISO-8601 date-time with an offset, e.g. 2024-05-01T10:00:00Z (at most microseconds)'
        : 'ISO-8601 local date-time without an offset, e.g. 2024-05-01T10:00:00';
    case 'date':
      return 'ISO-8601 date, e.g. 2024-05-01';
    case 'boolean':
      return 'boolean';
    case 'uuid':
      return 'UUID, e.g. 123e4567-e89b-12d3-a456-426614174000';
    case 'string':
      if (type.enum !== undefined) return `one of: ${type.enum.join(', ')}`;
      return `string of at most ${Math.min(maxString, type.maxLength ?? maxString)} characters`;
    default:
      return `nothing: ${type.class} columns cannot be compared`;
  }
}

/**
 * Checks one value against a column type and returns what is bound for it. Values are only
 * ever bound as parameters; this check exists so the agent gets a precise error instead of a
 * server error, and so nothing the column cannot hold (overflow, NaN, a 7th fractional digit)
 * is silently rounded by the server. Records a violation and returns undefined when invalid.
 */
export function checkValue(
  value: unknown,
  type: SqlColumnType,
  path: string,
  violations: Violations,
  maxString: number = MAX_FILTER_STRING,
): SqlParameter | undefined {
  const expected = expectedValue(type, maxString);
  const reject = (message = `expected ${expected}`): undefined => {
    violations.add(path, message, expected, value);
    return undefined;
  };
  switch (type.class) {
    case 'integer':
      return checkInteger(value, type, reject);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : reject();
    case 'decimal':
      return checkDecimal(value, type, reject);
    case 'boolean':
      return typeof value === 'boolean' ? value : reject();
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? value : reject();
    case 'datetime':
      return typeof value === 'string' ? (normalizeDatetime(value, type) ?? reject()) : reject();
    case 'uuid':
      return typeof value === 'string' && UUID_TEXT.test(value) ? value.toLowerCase() : reject();
    case 'string': {
      if (typeof value !== 'string') return reject();
      if (type.enum !== undefined) return type.enum.includes(value) ? value : reject();
      const max = Math.min(maxString, type.maxLength ?? maxString);
      if ([...value].length > max) {
        return reject(`string is ${[...value].length} characters; at most ${max} allowed`);
      }
      // No server stores NUL in text; refusing it here keeps the error the agent's to fix.
      return value.includes('\u0000') ? reject('strings may not contain NUL characters') : value;
    }
    default:
      return reject();
  }
}

function checkInteger(
  value: unknown,
  type: SqlColumnType,
  reject: (message?: string) => undefined,
): SqlParameter | undefined {
  let parsed: bigint;
  if (typeof value === 'number' && Number.isSafeInteger(value)) parsed = BigInt(value);
  else if (typeof value === 'string' && integerAsString(type) && INTEGER_TEXT.test(value)) {
    parsed = BigInt(value);
  } else return reject();
  const [low, high] = integerBounds(type);
  if (parsed < low || parsed > high) return reject(`${String(value)} is out of range`);
  return integerAsString(type) ? parsed.toString() : Number(parsed);
}

function decimalExpectation(type: SqlColumnType): string {
  if (type.precision === undefined) return 'decimal number as a string, e.g. "12.50"';
  const scale = type.scale ?? 0;
  return `decimal string with at most ${type.precision - scale} digits before the point and ${scale} after, e.g. "12.50"`;
}

function checkDecimal(
  value: unknown,
  type: SqlColumnType,
  reject: (message?: string) => undefined,
): SqlParameter | undefined {
  // Numbers are accepted when their shortest rendering is a plain decimal (no exponent).
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string') return reject();
  const match = DECIMAL_TEXT.exec(text);
  if (match === null) return reject();
  const whole = (match[1] as string).replace(/^0+(?=\d)/, '');
  const fraction = match[2] ?? '';
  if (type.precision !== undefined) {
    const scale = type.scale ?? 0;
    if (whole !== '0' && whole.length > type.precision - scale) {
      return reject(
        `${text} overflows the column (at most ${type.precision - scale} digits before the point)`,
      );
    }
    if (fraction.length > scale) {
      return reject(`${text} has more than ${scale} digits after the point`);
    }
  }
  return text;
}

/** A valid `YYYY-MM-DD` between years 1 and 9999. */
export function isCalendarDate(text: string): boolean {
  const match = DATE_TEXT.exec(text);
  if (match === null) return false;
  return validDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

function validDate(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(2000, month - 1, day));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (month === 2 && day === 29) return leap;
  return date.getUTCMonth() === month - 1;
}

/**
 * An ISO-8601 date-time as the server is sent it: for time-zone-aware columns converted to UTC
 * (sessions run in UTC) as `YYYY-MM-DD HH:MM:SS.ffffff`; for local columns as written, which
 * must then have no offset. Undefined when invalid.
 */
export function normalizeDatetime(text: string, type: SqlColumnType): string | undefined {
  const match = DATETIME_TEXT.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((p) => Number(p ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  const micros = (match[7] ?? '').padEnd(6, '0');
  const offset = match[8];
  if (type.timeZone !== true) {
    return offset === undefined
      ? `${match[1]}-${match[2]}-${match[3]} ${pad(hour)}:${pad(minute)}:${pad(second)}.${micros}`
      : undefined;
  }
  if (offset === undefined) return undefined;
  const offsetMinutes =
    offset === 'Z'
      ? 0
      : (offset.startsWith('-') ? -1 : 1) *
        (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute - offsetMinutes, second, 0);
  const y = utc.getUTCFullYear();
  if (y < 1 || y > 9999) return undefined;
  return `${String(y).padStart(4, '0')}-${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())} ${pad(utc.getUTCHours())}:${pad(utc.getUTCMinutes())}:${pad(utc.getUTCSeconds())}.${micros}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
