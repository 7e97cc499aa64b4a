/**
 * The memory service's MongoDB collections and indexes. FerretDB (the local MongoDB-wire
 * server) has no multi-document transactions and no TTL indexes: every change is a single
 * document update whose version transition is arbitrated by a claim insert (`claimTransition`),
 * uniqueness comes from unique indexes, and expiry is enforced on read plus a periodic sweep
 * (a TTL index is still created where the server supports it).
 */
import { createHash } from 'node:crypto';
import { TollgateError } from '@tollgate/core';
import { ensureIndexes } from '@tollgate/kit';
import type { Collection, Db, Document } from 'mongodb';
import type { Owner } from './types.js';

/** A stored document with a string `_id`. */
export type StoredDocument = Document & { _id: string };

/** The collections, by purpose. */
export interface MemoryStore {
  db: Db;
  sessions: Collection<StoredDocument>;
  preferences: Collection<StoredDocument>;
  /** Derived preference keys a person forgot; derivation never writes them again. */
  forgotten: Collection<StoredDocument>;
  candidates: Collection<StoredDocument>;
  savedQueries: Collection<StoredDocument>;
  skills: Collection<StoredDocument>;
  /** Usage signals (decayed counters and same-shape uses) derived from completed calls. */
  signals: Collection<StoredDocument>;
  /** memory.written events not yet stored by JetStream. */
  outbox: Collection<StoredDocument>;
  /** One document per version transition (`<id>#<from>`): see `claimTransition`. */
  claims: Collection<StoredDocument>;
}

const OWNER = { tenant: 1, agent: 1, user: 1 } as const;

/** Opens the collections and creates their indexes (idempotent). */
export async function openStore(db: Db): Promise<MemoryStore> {
  const col = (name: string) => db.collection<StoredDocument>(name);
  const store: MemoryStore = {
    db,
    sessions: col('memory_sessions'),
    preferences: col('memory_preferences'),
    forgotten: col('memory_forgotten'),
    candidates: col('memory_candidates'),
    savedQueries: col('memory_saved_queries'),
    skills: col('memory_skills'),
    signals: col('memory_signals'),
    outbox: col('memory_outbox'),
    claims: col('memory_version_claims'),
  };
  await ensureIndexes(db, {
    memory_preferences: [
      { key: { ...OWNER, key: 1 }, unique: true, name: 'owner_key' },
      { key: { tenant: 1, user: 1 } },
    ],
    memory_candidates: [
      { key: { ...OWNER, signal: 1 }, unique: true, name: 'owner_signal' },
      { key: { tenant: 1, user: 1, status: 1 } },
    ],
    memory_saved_queries: [{ key: { ...OWNER, name: 1 }, unique: true, name: 'owner_name' }],
    memory_skills: [{ key: { ...OWNER, name: 1 }, unique: true, name: 'owner_name' }],
    memory_outbox: [{ key: { createdAt: 1 } }],
  });
  await indexExpiry(store.sessions);
  return store;
}

/**
 * Indexes session expiry: a TTL index where the server has them (MongoDB deletes expired
 * snapshots itself), a plain one where it refuses the option (FerretDB 1.x).
 */
async function indexExpiry(sessions: Collection<StoredDocument>): Promise<void> {
  try {
    await sessions.createIndex({ expiresAt: 1 }, { name: 'expiry', expireAfterSeconds: 0 });
  } catch (err) {
    if (!/not implemented|not supported/i.test((err as Error).message)) throw err;
    await sessions.createIndex({ expiresAt: 1 }, { name: 'expiry' });
  }
}

/** A stable id for something owned: sha256 over the owner and a key, hex, 40 characters. */
export function ownedId(owner: Owner, ...key: string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([owner.tenant, owner.agent, owner.user, ...key]))
    .digest('hex')
    .slice(0, 40);
}

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

/** True for a duplicate-key error (unique index violation). */
export function isDuplicateKey(err: unknown): boolean {
  return (err as { code?: unknown })?.code === 11000;
}

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
