/**
 * Opaque page tokens. A token carries where the previous page stopped and a digest of the
 * query it belongs to, so a token replayed with other filters (or forged) is refused instead
 * of silently returning a wrong page.
 */
import { createHash } from 'node:crypto';
import { TollgateError, canonicalJson } from '@tollgate/core';

const MAX_TOKEN_LENGTH = 1024;

/** How large a page may be, and its size when a request names none. */
export interface PageLimits {
  default: number;
  max: number;
}

/** The page limits of a list that names none of its own. */
export const PAGE_SIZE: PageLimits = { default: 50, max: 500 };

/** The size of the page to serve: 0 is the default, anything larger than the maximum is capped. */
export function pageSize(requested: number, limits: PageLimits = PAGE_SIZE): number {
  return requested === 0 ? limits.default : Math.min(requested, limits.max);
}

/** Checks of the usual positions: the last name returned, or a sequence number. */
export const pagePositions = {
  name: (position: unknown): position is string => typeof position === 'string',
  sequence: (position: unknown): position is number =>
    Number.isSafeInteger(position) && (position as number) >= 0,
};

/** Encodes the position after which the next page starts, bound to `query` (any JSON value). */
export function encodePageToken(position: unknown, query: unknown): string {
  return Buffer.from(JSON.stringify({ p: position, q: digest(query) }), 'utf8').toString(
    'base64url',
  );
}

/**
 * A token read back: the position (undefined for the first page, an empty token), or why it
 * was refused — `unreadable` (not a token of ours, or a position `check` does not accept) or
 * `other_query` (a token of a query with other filters).
 */
export type PageTokenRead<P> =
  { position: P | undefined } | { refused: 'unreadable' | 'other_query' };

/** Reads a token back for `query`, without throwing; see `decodePageToken` for the usual error. */
export function readPageToken<P>(
  token: string,
  query: unknown,
  check: (position: unknown) => position is P,
): PageTokenRead<P> {
  if (token === '') return { position: undefined };
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token))
    return { refused: 'unreadable' };
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return { refused: 'unreadable' };
  }
  if (typeof body !== 'object' || body === null) return { refused: 'unreadable' };
  const { p, q } = body as { p?: unknown; q?: unknown };
  if (typeof q !== 'string' || !check(p)) return { refused: 'unreadable' };
  if (q !== digest(query)) return { refused: 'other_query' };
  return { position: p };
}

/**
 * Reads a token back for `query`: undefined for the first page (empty token). A token that is
 * not ours, or belongs to another query, is INVALID_ARGUMENT on `page_token`.
 */
export function decodePageToken<P>(
  token: string,
  query: unknown,
  check: (position: unknown) => position is P,
): P | undefined {
  const read = readPageToken(token, query, check);
  if ('refused' in read) throw invalidToken();
  return read.position;
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
