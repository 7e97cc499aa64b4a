/**
 * Version transitions arbitrated by claim inserts. FerretDB (the local MongoDB-wire server) has
 * no multi-document transactions and its version-filtered updates are not atomic, so each
 * transition is first claimed by inserting a document with a unique `_id`.
 */
import { isDuplicateKey } from '@tollgate/kit';
import type { Collection } from 'mongodb';
import type { StoredDocument } from './collections.js';

/** How long a claim may stand without its update landing before it counts as abandoned. */
const ABANDONED_CLAIM_MS = 15_000;

/**
 * Claims the right to move document `id` from version `from` to `from + 1`. FerretDB's
 * `findOneAndUpdate({ version: from })` is not an atomic compare-and-set (two writers can both
 * match), so the transition is arbitrated by an insert on a unique `_id` first: exactly one
 * writer wins each transition and only it updates. A claim left by a writer that died before
 * its update is taken over once it is older than ABANDONED_CLAIM_MS.
 */
export async function claimTransition(
  claims: Collection<StoredDocument>,
  id: string,
  from: number,
  now: Date,
): Promise<boolean> {
  const _id = `${id}#${from}`;
  try {
    await claims.insertOne({ _id, at: now });
    return true;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
  const stale = new Date(now.getTime() - ABANDONED_CLAIM_MS);
  const taken = await claims.deleteOne({ _id, at: { $lt: stale } });
  if (taken.deletedCount !== 1) return false;
  try {
    await claims.insertOne({ _id, at: now });
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

/**
 * Gives back a claim taken by `claimTransition` at `at` whose update was not made (the change
 * was refused after all), so the next writer need not wait for it to be abandoned.
 */
export async function releaseTransition(
  claims: Collection<StoredDocument>,
  id: string,
  from: number,
  at: Date,
): Promise<void> {
  await claims.deleteOne({ _id: `${id}#${from}`, at });
}

/** A short random pause before retrying a transition another writer claimed (grows per attempt). */
export function contentionPause(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(200, 5 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
