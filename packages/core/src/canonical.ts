/**
 * Canonical JSON — the one encoding every Tollgate hash is computed over (descriptor hashes,
 * tool version hashes, permission-set hashes, cursor seals, approval bindings, the audit
 * chain): object keys sorted by UTF-16 code unit at every level, no whitespace, strings and
 * numbers as `JSON.stringify` writes them (RFC 8785 for the values Tollgate holds), `toJSON`
 * honoured, `undefined` object members left out and `undefined` array items written as null.
 * Non-finite numbers, bigints, functions, symbols and cycles throw instead of being changed.
 */
import { createHash } from 'node:crypto';

/** Compares strings by code unit: locale-independent, so sorting is the same everywhere. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The canonical JSON text of `value`. `memo` may hold the serializations of objects several
 * values share (e.g. the filter schema the tools of a set share), written as they are.
 */
export function canonicalJson(value: unknown, memo?: Map<object, string>): string {
  const out: string[] = [];
  write(value, out, memo, new Set());
  return out.join('');
}

/** Lower-case hex sha256 of the canonical JSON of `value`. */
export function canonicalHash(value: unknown, memo?: Map<object, string>): string {
  return createHash('sha256').update(canonicalJson(value, memo), 'utf8').digest('hex');
}

function write(
  value: unknown,
  out: string[],
  memo: Map<object, string> | undefined,
  ancestors: Set<object>,
): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not JSON`);
      out.push(JSON.stringify(value));
      return;
    case 'object':
      writeObject(value, out, memo, ancestors);
      return;
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} is not JSON`);
  }
}

function writeObject(
  value: object,
  out: string[],
  memo: Map<object, string> | undefined,
  ancestors: Set<object>,
): void {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    write((value as { toJSON: () => unknown }).toJSON(), out, memo, ancestors);
    return;
  }
  const known = memo?.get(value);
  if (known !== undefined) {
    out.push(known);
    return;
  }
  if (ancestors.has(value)) throw new TypeError('canonicalJson: cyclic structure');
  ancestors.add(value);
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item: unknown, i) => {
      if (i > 0) out.push(',');
      if (item === undefined) out.push('null');
      else write(item, out, memo, ancestors);
    });
    out.push(']');
  } else {
    const record = value as Record<string, unknown>;
    out.push('{');
    let first = true;
    for (const key of Object.keys(record).sort(compareCodeUnits)) {
      if (record[key] === undefined) continue;
      out.push(first ? JSON.stringify(key) : `,${JSON.stringify(key)}`, ':');
      first = false;
      write(record[key], out, memo, ancestors);
    }
    out.push('}');
  }
  ancestors.delete(value);
}
