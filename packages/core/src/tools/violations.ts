/**
 * Argument violations of one call, collected and thrown together: the shared checks every
 * connector's compile uses (unknown keys, plain objects, own properties, safe value rendering).
 */
import { TollgateError } from '../errors/codes.js';
import type { ErrorDetail } from '../errors/codes.js';

const MAX_FOUND = 64;

/**
 * Collects every argument violation of one call, so the agent can fix them all at once, then
 * throws a single `ARGUMENTS_INVALID` naming each offending path.
 */
export class Violations {
  readonly details: ErrorDetail[] = [];

  add(path: string, message: string, expected?: string, found?: unknown): void {
    const detail: ErrorDetail = { path, message };
    if (expected !== undefined) detail.expected = expected;
    if (found !== undefined) detail.found = describeValue(found);
    this.details.push(detail);
  }

  get count(): number {
    return this.details.length;
  }

  throwIfAny(operation: string): void {
    if (this.details.length === 0) return;
    const first = this.details[0] as ErrorDetail;
    const more = this.details.length > 1 ? ` (and ${this.details.length - 1} more)` : '';
    throw new TollgateError(
      'ARGUMENTS_INVALID',
      `Invalid ${operation} arguments: ${first.path}: ${first.message}${more}.`,
      { details: this.details },
    );
  }
}

/** A short, safe rendering of an offending value: never the whole of a huge or nested value. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `array of ${value.length}`;
  if (typeof value === 'object') return 'object';
  if (typeof value === 'string') {
    const shown = JSON.stringify(
      value.length > MAX_FOUND ? `${value.slice(0, MAX_FOUND)}…` : value,
    );
    return value.length > MAX_FOUND ? `${shown} (${value.length} characters)` : shown;
  }
  return String(value);
}

/** `one of: a, b, c`, or `none available` for an empty list. */
export function oneOf(values: readonly string[]): string {
  return values.length === 0 ? 'none available' : `one of: ${values.join(', ')}`;
}

/** True for `{…}` built from JSON (not arrays, class instances or null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Own property value, safe for keys such as `__proto__`. */
export function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Checks an object's keys against the allowed set; unknown keys are violations. Returns false
 * when the value is not a plain object at all.
 */
export function checkKeys(
  value: unknown,
  allowed: readonly string[],
  path: string,
  violations: Violations,
): value is Record<string, unknown> {
  if (!isPlainObject(value)) {
    violations.add(path === '' ? '(arguments)' : path, 'expected an object', 'object', value);
    return false;
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      violations.add(join(path, key), `unknown argument "${key}"`, oneOf(allowed), key);
    }
  }
  return true;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
