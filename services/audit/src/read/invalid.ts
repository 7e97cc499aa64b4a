import { TollgateError } from '@tollgate/core';
import { pagePositions, readPageToken } from '@tollgate/kit';

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

/**
 * The sequence a page token continues after (0 for no token), for the query `seal` stands for;
 * refuses forged tokens and tokens of a query with other filters.
 */
export function pageAfter(token: string, seal: unknown, path = 'page_token'): number {
  const read = readPageToken(token, seal, pagePositions.sequence);
  if (!('refused' in read)) return read.position ?? 0;
  if (read.refused === 'other_query') {
    throw invalidField(
      path,
      'belongs to a query with other filters',
      'next_page_token of the same query',
    );
  }
  throw invalidField(path, 'not a page token', 'next_page_token of a previous response');
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) < 0x20) return true;
  return false;
}
