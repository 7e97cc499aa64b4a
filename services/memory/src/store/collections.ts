/**
 * The memory service's MongoDB collections and indexes. FerretDB (the local MongoDB-wire
 * server) has no multi-document transactions and no TTL indexes: every change is a single
 * document update whose version transition is arbitrated by a claim insert (see claims.ts),
 * uniqueness comes from unique indexes, and expiry is enforced on read plus a periodic sweep
 * (a TTL index is still created where the server supports it).
 */
import { createHash } from 'node:crypto';
import { ensureIndexes } from '@tollgate/kit';
import type { Collection, Db, Document } from 'mongodb';
import type { Owner } from '../types.js';

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
