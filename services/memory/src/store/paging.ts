/**
 * Paging of listings: one page of documents in `_id` order, with kit's page tokens (the last
 * `_id` of the previous page, bound to the listing's filter).
 */
import { decodePageToken, encodePageToken, pagePositions } from '@tollgate/kit';
import type { Collection, Document } from 'mongodb';
import type { StoredDocument } from './collections.js';

/** One page of documents matching `filter`, in `_id` order; the token is bound to `filter`. */
export async function findPage(
  collection: Collection<StoredDocument>,
  filter: Document,
  page: { size: number; token: string },
): Promise<{ docs: StoredDocument[]; nextPageToken: string }> {
  const after = decodePageToken(page.token, filter, pagePositions.name);
  const query = after === undefined ? filter : { $and: [filter, { _id: { $gt: after } }] };
  const docs = await collection
    .find(query)
    .sort({ _id: 1 })
    .limit(page.size + 1)
    .toArray();
  const more = docs.length > page.size;
  const shown = more ? docs.slice(0, page.size) : docs;
  return {
    docs: shown,
    nextPageToken: more ? encodePageToken(shown.at(-1)?._id ?? '', filter) : '',
  };
}
