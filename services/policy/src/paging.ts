/**
 * Opaque page tokens: where the previous page stopped, bound to a digest of the query, so a
 * token replayed with other filters (or forged) is refused instead of returning a wrong page.
 */
import { createHash } from 'node:crypto';
import { TollgateError, canonicalJson } from '@tollgate/core';

const MAX_TOKEN_LENGTH = 1024;

/** Largest page a list returns, and the size when a request names none. */
export const PAGE_SIZE = { default: 50, max: 500 } as const;

export function pageSize(requested: number): number {
  return requested === 0 ? PAGE_SIZE.default : Math.min(requested, PAGE_SIZE.max);
}

/** Encodes the position after which the next page starts, bound to `query`. */
export function encodePageToken(position: unknown, query: unknown): string {
  return Buffer.from(JSON.stringify({ p: position, q: digest(query) }), 'utf8').toString(
    'base64url',
  );
}

/**
 * Reads a token back for `query`: undefined for the first page (empty token). `check` says
 * whether the position has the expected shape. A token that is not ours, or belongs to another
 * query, is INVALID_ARGUMENT on `page_token`.
 */
export function decodePageToken<P>(
  token: string,
  query: unknown,
  check: (position: unknown) => position is P,
): P | undefined {
  if (token === '') return undefined;
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalidToken();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken();
  }
  const { p, q } = (body ?? {}) as { p?: unknown; q?: unknown };
  if (q !== digest(query) || !check(p)) throw invalidToken();
  return p;
}

function digest(query: unknown): string {
  return createHash('sha256').update(canonicalJson(query)).digest('base64url').slice(0, 16);
}

function invalidToken(): TollgateError {
  const message = 'not a token from the previous page of this same query';
  return new TollgateError(
    'INVALID_ARGUMENT',
    `page_token: ${message} (filters must not change between pages)`,
    {
      details: [
        {
          path: 'page_token',
          message,
          expected: 'next_page_token of the previous response, with the same filters',
          found: 'an unknown token',
        },
      ],
    },
  );
}
