/**
 * Paging of listings: opaque page tokens (the last `_id` of the previous page) and one page of
 * documents in `_id` order.
 */
import { TollgateError } from '@tollgate/core';
import type { Collection, Document } from 'mongodb';
import type { StoredDocument } from './collections.js';

/** Opaque page token: the last `_id` of the previous page. */
export function encodePageToken(lastId: string): string {
  return Buffer.from(JSON.stringify({ after: lastId }), 'utf8').toString('base64url');
}

export function decodePageToken(token: string): string | undefined {
  if (token === '') return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    const after = (parsed as { after?: unknown })?.after;
    if (typeof after === 'string' && after !== '') return after;
  } catch {
    // Reported below.
  }
  throw new TollgateError('INVALID_ARGUMENT', 'page_token is not a token from a previous page.', {
    details: [
      {
        path: 'page_token',
        message: 'unknown page token',
        expected: 'next_page_token of a previous response',
      },
    ],
  });
}

/** One page of documents matching `filter`, in `_id` order. */
export async function findPage(
  collection: Collection<StoredDocument>,
  filter: Document,
  page: { size: number; token: string },
): Promise<{ docs: StoredDocument[]; nextPageToken: string }> {
  const after = decodePageToken(page.token);
  const query = after === undefined ? filter : { $and: [filter, { _id: { $gt: after } }] };
  const docs = await collection
    .find(query)
    .sort({ _id: 1 })
    .limit(page.size + 1)
    .toArray();
  const more = docs.length > page.size;
  const shown = more ? docs.slice(0, page.size) : docs;
  return { docs: shown, nextPageToken: more ? encodePageToken(shown.at(-1)?._id ?? '') : '' };
}
