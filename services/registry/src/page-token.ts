/**
 * Opaque page tokens. A token carries where the previous page stopped and a digest of the
 * query it belongs to, so a token replayed with other filters (or forged) is refused instead
 * of silently returning a wrong page.
 */
import { createHash } from 'node:crypto';
import { TollgateError, canonicalJson } from '@tollgate/core';

const MAX_TOKEN_LENGTH = 1024;

interface TokenBody {
  /** Position: the last name (List) or version (History) already returned. */
  p: string | number;
  /** Digest of the query. */
  q: string;
}

/** Encodes the position after which the next page starts, bound to `query`. */
export function encodePageToken(position: string | number, query: unknown): string {
  const body: TokenBody = { p: position, q: queryDigest(query) };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/**
 * Reads a token back for `query`; an empty token is the first page (`undefined`). A token
 * that is not one of ours, or belongs to another query, is INVALID_ARGUMENT on `page_token`.
 */
export function decodePageToken<P extends 'string' | 'number'>(
  token: string,
  query: unknown,
  kind: P,
): (P extends 'string' ? string : number) | undefined {
  if (token === '') return undefined;
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalidToken();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken();
  }
  const { p, q } = (body ?? {}) as Partial<TokenBody>;
  if (typeof p !== kind || (kind === 'number' && !Number.isSafeInteger(p))) throw invalidToken();
  if (q !== queryDigest(query)) throw invalidToken();
  return p as P extends 'string' ? string : number;
}

function queryDigest(query: unknown): string {
  return createHash('sha256').update(canonicalJson(query)).digest('base64url').slice(0, 16);
}

function invalidToken(): TollgateError {
  return new TollgateError(
    'INVALID_ARGUMENT',
    'page_token: not a token from the previous page of this same query (filters must not change between pages)',
    {
      details: [
        {
          path: 'page_token',
          message: 'not a token from the previous page of this same query',
          expected: 'next_page_token of the previous response, with the same filters',
          found: 'an unknown token',
        },
      ],
    },
  );
}
