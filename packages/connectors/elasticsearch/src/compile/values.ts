import { isIP } from 'node:net';

import type { FieldSpec, FieldType } from '@tollgate/core';

import type { Violations } from '@tollgate/core';

/** A single value compared against a field (filters) or stored in it (writes). */
export type Scalar = string | number | boolean;

/** Longest string a filter value may be. */
export const MAX_FILTER_STRING = 256;

const INTEGER_RANGE: Partial<Record<FieldType, [number, number]>> = {
  byte: [-128, 127],
  short: [-32_768, 32_767],
  integer: [-2_147_483_648, 2_147_483_647],
  long: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  unsigned_long: [0, Number.MAX_SAFE_INTEGER],
};
const FLOAT_TYPES: ReadonlySet<FieldType> = new Set([
  'double',
  'float',
  'half_float',
  'scaled_float',
]);

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** ISO-8601 date or date-time with a valid calendar date and clock time. */
export function isIsoDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  if (match === null) return false;
  const [year, month, day, hour, minute, second] = match
    .slice(1, 7)
    .map((part) => Number(part ?? 0));
  const date = new Date(Date.UTC(year as number, (month as number) - 1, day as number));
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === (month as number) - 1 &&
    date.getUTCDate() === day &&
    (hour as number) < 24 &&
    (minute as number) < 60 &&
    (second as number) < 60
  );
}

/** What a value of this field type must look like, in words. */
export function expectedValue(type: FieldType, maxString: number): string {
  const range = INTEGER_RANGE[type];
  if (range !== undefined) return `integer from ${range[0]} to ${range[1]}`;
  if (FLOAT_TYPES.has(type)) return 'finite number';
  if (type === 'date') return 'ISO-8601 date or date-time, e.g. 2024-05-01T00:00:00Z';
  if (type === 'boolean') return 'boolean';
  if (type === 'ip') return 'IPv4 or IPv6 address';
  return `string of at most ${maxString} characters`;
}

/**
 * Checks one value against a field's type. Strings are only ever compared literally (never
 * parsed as query syntax). Records a violation at `path` and returns undefined when invalid.
 */
export function checkScalar(
  value: unknown,
  spec: FieldSpec,
  path: string,
  violations: Violations,
  maxString: number = MAX_FILTER_STRING,
): Scalar | undefined {
  const expected = expectedValue(spec.type, maxString);
  const reject = (message: string = `expected ${expected}`): undefined => {
    violations.add(path, message, expected, value);
    return undefined;
  };
  const range = INTEGER_RANGE[spec.type];
  if (range !== undefined) {
    if (typeof value !== 'number' || !Number.isInteger(value)) return reject();
    return value < range[0] || value > range[1] ? reject(`${value} is out of range`) : value;
  }
  if (FLOAT_TYPES.has(spec.type)) {
    return typeof value === 'number' && Number.isFinite(value) ? value : reject();
  }
  if (spec.type === 'boolean') return typeof value === 'boolean' ? value : reject();
  if (typeof value !== 'string') return reject();
  if (spec.type === 'date') return isIsoDate(value) ? value : reject();
  if (spec.type === 'ip') return isIP(value) !== 0 ? value : reject();
  if (value.length > maxString) {
    return reject(`string is ${value.length} characters; at most ${maxString} allowed`);
  }
  return value;
}
