import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, `undefined` object members
 * dropped. Two equal values always serialise to the same text, so hashes over it are stable.
 * Throws a TypeError naming the path of anything JSON cannot carry (NaN, Infinity, bigint,
 * functions, symbols, class instances, `undefined` inside arrays).
 */
export function canonicalJson(value: unknown): string {
  return encode(value, '$');
}

/** Hex sha256 of the canonical JSON of `value`. */
export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function encode(value: unknown, path: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value))
        throw new TypeError(`canonical JSON: ${path} is ${value}, not a finite number`);
      return JSON.stringify(value);
    case 'object':
      return Array.isArray(value) ? encodeArray(value, path) : encodeObject(value, path);
    default:
      throw new TypeError(`canonical JSON: ${path} is a ${typeof value}, which JSON cannot carry`);
  }
}

function encodeArray(items: unknown[], path: string): string {
  const parts = items.map((item, i) => {
    if (item === undefined) throw new TypeError(`canonical JSON: ${path}[${i}] is undefined`);
    return encode(item, `${path}[${i}]`);
  });
  return `[${parts.join(',')}]`;
}

function encodeObject(value: object, path: string): string {
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    throw new TypeError(`canonical JSON: ${path} is not a plain object`);
  }
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${encode(record[key], `${path}.${key}`)}`);
  return `{${members.join(',')}}`;
}
