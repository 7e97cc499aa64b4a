import { TollgateError } from '@tollgate/core';

/** A request field that is not acceptable: INVALID_ARGUMENT naming the field. */
export function invalidField(
  path: string,
  message: string,
  expected: string,
  found?: string,
): TollgateError {
  return new TollgateError('INVALID_ARGUMENT', `${path}: ${message}`, {
    details: [{ path, message, expected, ...(found === undefined ? {} : { found }) }],
  });
}

const MAX_TEXT = 256;

/** A filter string: at most 256 characters, no control characters. */
export function filterText(path: string, value: string): string {
  if (value.length > MAX_TEXT || hasControlCharacter(value)) {
    throw invalidField(
      path,
      'not an acceptable filter value',
      `at most ${MAX_TEXT} characters without control characters`,
      `${value.length} characters`,
    );
  }
  return value;
}

/** Page size: 0 means `fallback`, more than `max` is refused. */
export function pageSize(path: string, value: number, fallback: number, max: number): number {
  if (value === 0) return fallback;
  if (value > max) throw invalidField(path, 'too large', `1..${max}`, String(value));
  return value;
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) < 0x20) return true;
  return false;
}
