/**
 * Canonical JSON (keys sorted by UTF-16 code units at every level, no whitespace, numbers and
 * strings as JSON.stringify writes them, in the spirit of RFC 8785) and the descriptor hash
 * built on it. The audit hash chain reuses `canonicalJson`.
 */
import { createHash } from 'node:crypto';
import type { Descriptor } from './types.js';

/**
 * The canonical JSON text of a JSON-compatible value. Object properties holding `undefined` are
 * left out and `toJSON` is honoured, as in JSON.stringify; non-finite numbers, bigints,
 * functions, symbols and cycles throw a TypeError instead of being silently changed.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, ancestors: Set<object>): string {
  if (value === null) return 'null';
  if (typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return write((value as { toJSON: () => unknown }).toJSON(), ancestors);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not JSON`);
      return JSON.stringify(value);
    case 'object':
      return writeContainer(value, ancestors);
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} is not JSON`);
  }
}

function writeContainer(value: object, ancestors: Set<object>): string {
  if (ancestors.has(value)) throw new TypeError('canonicalJson: cyclic structure');
  ancestors.add(value);
  let text: string;
  if (Array.isArray(value)) {
    text = `[${value.map((item: unknown) => (item === undefined ? 'null' : write(item, ancestors))).join(',')}]`;
  } else {
    const entries = Object.entries(value)
      .filter(([, child]) => child !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    text = `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${write(child, ancestors)}`).join(',')}}`;
  }
  ancestors.delete(value);
  return text;
}

/** sha256 of the descriptor's canonical JSON, lowercase hex (64 characters). */
export function descriptorHash(descriptor: Descriptor): string {
  return createHash('sha256').update(canonicalJson(descriptor), 'utf8').digest('hex');
}
