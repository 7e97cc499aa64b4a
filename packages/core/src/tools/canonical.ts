/**
 * Canonical JSON (object keys sorted by code unit, no whitespace; numbers and strings as
 * `JSON.stringify` writes them, which matches RFC 8785 for the values tools contain) and the
 * sha256 digests built on it. Same value → same bytes → same hash, on every machine.
 */
import { createHash } from 'node:crypto';

/** Compares strings by code unit: locale-independent, so sorting is the same everywhere. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Serializes plain JSON data with sorted keys; `undefined` members are left out. `memo` may
 * hold the serializations of objects several values share (the filter schema the tools of a
 * set share), written as they are instead of sorted again.
 */
export function canonicalJson(value: unknown, memo?: Map<object, string>): string {
  const out: string[] = [];
  write(value, out, memo);
  return out.join('');
}

function write(value: unknown, out: string[], memo: Map<object, string> | undefined): void {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new TypeError(`canonical JSON cannot hold ${value}`);
    }
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      write(value[i], out, memo);
    }
    out.push(']');
    return;
  }
  const known = memo?.get(value);
  if (known !== undefined) {
    out.push(known);
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort(compareCodeUnits);
  out.push('{');
  let first = true;
  for (const key of keys) {
    if (record[key] === undefined) continue;
    out.push(first ? JSON.stringify(key) : `,${JSON.stringify(key)}`, ':');
    first = false;
    write(record[key], out, memo);
  }
  out.push('}');
}

/** Lower-case hex sha256 of the canonical JSON of `value`. */
export function canonicalHash(value: unknown, memo?: Map<object, string>): string {
  return createHash('sha256').update(canonicalJson(value, memo)).digest('hex');
}
