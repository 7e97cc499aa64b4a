import { createHmac, timingSafeEqual } from 'node:crypto';

import { TollgateError } from '../errors/codes.js';
import { canonicalJson } from '../canonical.js';

/** A sort value a cursor carries (the last row's position in the sort order). */
export type CursorValue = string | number | boolean | null;

const CURSOR_VERSION = 1;
const MAX_CURSOR_LENGTH = 4096;
const UNKEYED = 'tollgate-cursor-v1';

/**
 * Digest of a query's shape (everything but the page size and the position), keyed with
 * `key` when one is configured. A cursor is only accepted by a query with the same seal.
 */
export function sealQuery(shape: unknown, key?: string): string {
  return createHmac('sha256', key ?? UNKEYED)
    .update(canonicalJson(shape))
    .digest('base64url');
}

/**
 * Cursor format: base64url of the JSON `{"v":1,"after":[…sort values],"sig":"…"}`, where `sig`
 * is the base64url HMAC-SHA256 of the JSON `after` array keyed with the query's seal.
 */
export function encodeCursor(after: readonly CursorValue[], seal: string): string {
  const payload = { v: CURSOR_VERSION, after, sig: signAfter(after, seal) };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/**
 * Reads a cursor issued for the query with this seal; throws `ARGUMENTS_INVALID` (path
 * `cursor`) when it is malformed, tampered with or belongs to another query.
 */
export function decodeCursor(cursor: string, seal: string, sortKeys: number): CursorValue[] {
  if (
    cursor.length === 0 ||
    cursor.length > MAX_CURSOR_LENGTH ||
    !/^[A-Za-z0-9_-]+$/.test(cursor)
  ) {
    throw cursorError('cursor is not one this tool issued; omit it to start from the first page');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw cursorError('cursor is not one this tool issued; omit it to start from the first page');
  }
  const after = readPayload(payload, sortKeys);
  if (after === undefined) {
    throw cursorError('cursor is not one this tool issued; omit it to start from the first page');
  }
  const expected = Buffer.from(signAfter(after, seal));
  const found = Buffer.from(String((payload as { sig: unknown }).sig));
  if (expected.length !== found.length || !timingSafeEqual(expected, found)) {
    throw cursorError(
      'cursor belongs to a different query (filters, fields or sort changed) or was altered; ' +
        'repeat the original query or omit the cursor',
    );
  }
  return after;
}

function readPayload(payload: unknown, sortKeys: number): CursorValue[] | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const record = payload as Record<string, unknown>;
  if (Object.keys(record).sort().join(',') !== 'after,sig,v') return undefined;
  if (record['v'] !== CURSOR_VERSION || typeof record['sig'] !== 'string') return undefined;
  const after = record['after'];
  if (!Array.isArray(after) || after.length !== sortKeys) return undefined;
  const scalar = (value: unknown): value is CursorValue =>
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value));
  return after.every(scalar) ? after : undefined;
}

function signAfter(after: readonly CursorValue[], seal: string): string {
  return createHmac('sha256', seal).update(JSON.stringify(after)).digest('base64url');
}

function cursorError(message: string): TollgateError {
  return new TollgateError('ARGUMENTS_INVALID', `Invalid cursor: ${message}.`, {
    details: [{ path: 'cursor', message, expected: 'a cursor returned by the same query' }],
  });
}
