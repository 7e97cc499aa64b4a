import { createHash } from 'node:crypto';
import { canonicalJson } from '../chain/canonical.js';
import { invalidField } from './invalid.js';

const TOKEN_VERSION = 1;

/** Digest of a query's filters: a page token only continues the query it came from. */
export function querySeal(shape: unknown): string {
  return createHash('sha256').update(canonicalJson(shape)).digest('base64url').slice(0, 22);
}

/** The opaque cursor after the record at `seq`. */
export function encodePageToken(seq: number, seal: string): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, after: seq, q: seal })).toString(
    'base64url',
  );
}

/** The sequence a page token continues after (0 for no token); refuses foreign tokens. */
export function decodePageToken(token: string, seal: string, path = 'page_token'): number {
  if (token === '') return 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const t = parsed as { v?: unknown; after?: unknown; q?: unknown } | undefined;
  if (
    t === undefined ||
    t === null ||
    t.v !== TOKEN_VERSION ||
    typeof t.after !== 'number' ||
    !Number.isSafeInteger(t.after) ||
    t.after < 0
  ) {
    throw invalidField(path, 'not a page token', 'next_page_token of a previous response');
  }
  if (t.q !== seal) {
    throw invalidField(
      path,
      'belongs to a query with other filters',
      'next_page_token of the same query',
    );
  }
  return t.after;
}
