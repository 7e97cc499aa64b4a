import { TollgateError } from '@tollgate/core';
import type { ErrorDetail } from '@tollgate/core';

const MAX_FOUND = 64;

/**
 * Every argument problem of one call, collected so the agent can fix them all at once, then
 * thrown as one `ARGUMENTS_INVALID` naming each offending path.
 */
export class Violations {
  readonly details: ErrorDetail[] = [];

  add(path: string, message: string, expected?: string, found?: unknown): void {
    this.details.push({
      path,
      message,
      ...(expected === undefined ? {} : { expected }),
      ...(found === undefined ? {} : { found: describeValue(found) }),
    });
  }

  get count(): number {
    return this.details.length;
  }

  throwIfAny(operation: string): void {
    const first = this.details[0];
    if (first === undefined) return;
    const more = this.details.length > 1 ? ` (and ${this.details.length - 1} more)` : '';
    throw new TollgateError(
      'ARGUMENTS_INVALID',
      `Invalid ${operation} arguments: ${first.path}: ${first.message}${more}.`,
      { details: this.details },
    );
  }
}

/** A short rendering of an offending value: never the whole of a huge or nested one. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `array of ${value.length}`;
  if (typeof value === 'object') return 'object';
  if (typeof value === 'string') {
    if (value.length <= MAX_FOUND) return JSON.stringify(value);
    return `${JSON.stringify(`${value.slice(0, MAX_FOUND)}…`)} (${value.length} characters)`;
  }
  return String(value);
}

/** `one of: a, b`, or `none available`. */
export function oneOf(values: readonly string[]): string {
  return values.length === 0 ? 'none available' : `one of: ${values.join(', ')}`;
}

/** A `{…}` built from JSON: not an array, class instance or null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** An own property, safe for keys such as `__proto__`. */
export function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Checks an object's keys; unknown keys are violations. False when it is no object at all. */
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
      const at = path === '' ? key : `${path}.${key}`;
      violations.add(at, `unknown argument "${key}"`, oneOf(allowed), key);
    }
  }
  return true;
}
