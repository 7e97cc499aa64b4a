import type { Db } from 'mongodb';
import { ensureIndexes } from '@tollgate/kit';
import { VersionedCollection } from './versioned.js';
import type { RowCodec, Stored } from './versioned.js';

/** One compiled bundle version of a tenant, as the ledger records it (the bundle itself lives in KV). */
export interface BundleEntry {
  tenant: string;
  /** Increases with every content change of the tenant's bundle. */
  version: number;
  /** `hash` of the bundle as published. */
  hash: string;
  /** Hash of the bundle's content without its version: equal content → equal hash. */
  contentHash: string;
  createdAt: Date;
}

export const BUNDLE_COLLECTIONS = { heads: 'bundle_heads', versions: 'bundle_versions' } as const;

/**
 * The bundle versions handed out per tenant. Committing version N+1 is how a publisher claims
 * it: versions never repeat or go backwards, even with several policy service instances.
 */
export class BundleLedger {
  readonly #rows: VersionedCollection<BundleEntry>;
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
    this.#rows = new VersionedCollection(db, BUNDLE_COLLECTIONS, codec);
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.#db, {
      [BUNDLE_COLLECTIONS.heads]: [{ key: { tenant: 1 }, name: 'tenant' }],
    });
  }

  /** The newest version, probing past the head. */
  latest(tenant: string): Promise<BundleEntry | undefined> {
    return this.#rows.current(tenant);
  }

  /** The newest version as far as the head knows (one read); a lost race sends writers to `latest`. */
  head(tenant: string): Promise<BundleEntry | undefined> {
    return this.#rows.head(tenant);
  }

  /** Claims `entry.version` (the commit point); false when another publisher claimed it first. */
  claim(entry: BundleEntry): Promise<boolean> {
    return this.#rows.insert(entry);
  }

  /** Moves the head to a claimed entry (a head left behind only costs the next publisher a probe). */
  recordHead(entry: BundleEntry): Promise<void> {
    return this.#rows.writeHead(entry);
  }

  tenants(): Promise<string[]> {
    return this.#rows.distinct('tenant');
  }
}

const codec: RowCodec<BundleEntry> = {
  key: (row) => row.tenant,
  toDocument: (id, row): Stored => ({ _id: id, ...row }),
  fromDocument(doc) {
    const d = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
    const id = typeof d._id === 'string' ? d._id : '(no id)';
    const bad = (field: string, expected: string): Error =>
      new Error(`stored bundle version ${id} is malformed: ${field} is not ${expected}`);
    for (const field of ['tenant', 'hash', 'contentHash'])
      if (typeof d[field] !== 'string' || d[field] === '') throw bad(field, 'a non-empty string');
    if (!Number.isSafeInteger(d.version) || (d.version as number) < 1)
      throw bad('version', 'an integer of at least 1');
    if (!(d.createdAt instanceof Date)) throw bad('createdAt', 'a date');
    return {
      tenant: d.tenant as string,
      version: d.version as number,
      hash: d.hash as string,
      contentHash: d.contentHash as string,
      createdAt: d.createdAt,
    };
  },
};
