import { Buffer } from 'node:buffer';

import type { SqlColumnType } from '../model.js';
import { integerAsString } from '../compile/values.js';

const SERVER_DATETIME =
  /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A value as the driver returned it → its JSON form for the agent, per the column's class
 * (see `SqlValueClass`): 64-bit integers and decimals as strings, non-finite floats as
 * `"NaN"`/`"Infinity"`/`"-Infinity"`, date-times as ISO 8601, JSON parsed, binary as base64.
 * Drivers are configured to hand over date-times and big numbers as text, so nothing is
 * rounded on the way.
 */
export function decodeValue(value: unknown, type: SqlColumnType): unknown {
  if (value === null || value === undefined) return null;
  switch (type.class) {
    case 'integer':
      if (integerAsString(type))
        return typeof value === 'bigint' ? value.toString() : String(value);
      return typeof value === 'number' ? value : Number(value);
    case 'number': {
      const number = typeof value === 'number' ? value : Number(value);
      if (Number.isFinite(number)) return number;
      return Number.isNaN(number) ? 'NaN' : number > 0 ? 'Infinity' : '-Infinity';
    }
    case 'decimal':
      return String(value);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'number' || typeof value === 'bigint') return Number(value) !== 0;
      return value === 't' || value === 'true' || value === '1';
    case 'datetime':
      return decodeDatetime(value, type.timeZone === true);
    case 'date':
      if (value instanceof Date) return value.toISOString().slice(0, 10);
      return String(value);
    case 'json':
      if (typeof value !== 'string')
        return Buffer.isBuffer(value) ? parseJson(value.toString('utf8')) : value;
      return parseJson(value);
    case 'binary':
      return Buffer.isBuffer(value)
        ? value.toString('base64')
        : Buffer.from(String(value), 'utf8').toString('base64');
    case 'array':
      return Array.isArray(value)
        ? value.map((item) =>
            decodeValue(item, type.element ?? { class: 'other', native: 'unknown' }),
          )
        : String(value);
    case 'string':
    case 'uuid':
      return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
    default:
      return typeof value === 'object' && !Buffer.isBuffer(value)
        ? JSON.stringify(value)
        : String(value);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** `2024-05-01 10:00:00.5+00` → `2024-05-01T10:00:00.5Z`; local ones without an offset. */
export function decodeDatetime(value: unknown, timeZone: boolean): string {
  if (value instanceof Date)
    return timeZone ? value.toISOString() : value.toISOString().slice(0, -1);
  const text = String(value);
  const match = SERVER_DATETIME.exec(text);
  if (match === null) return text; // `infinity` and the like, as the server says them
  const [, y, mo, d, h, mi, s, fraction = '', offset] = match;
  const local = `${y}-${mo}-${d}T${h}:${mi}:${s}${fraction}`;
  if (!timeZone) return local;
  if (offset === undefined || offset === 'Z' || /^[+-]00(:?00)?$/.test(offset)) return `${local}Z`;
  const normalized =
    offset.length === 3
      ? `${offset}:00`
      : offset.includes(':')
        ? offset
        : `${offset.slice(0, 3)}:${offset.slice(3)}`;
  return `${local}${normalized}`;
}
