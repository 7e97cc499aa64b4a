import type { Collection, Db } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { ensureIndexes } from '@tollgate/kit';
import type { IndexPlan } from '@tollgate/kit';
import { fromVersionDocument, toVersionDocument } from './records.js';
import type { VersionDocument, VersionRecord } from './records.js';
import { resourceId, versionId } from './scope.js';
import type { ResourceRef } from './scope.js';

/** Collection names of the registry. */
export const COLLECTIONS = { heads: 'resources', versions: 'resource_versions' } as const;

const DUPLICATE_KEY = 11000;
const PROBE_CONCURRENCY = 16;

/**
 * Resource versions in MongoDB, designed for stores without multi-document transactions
 * (FerretDB, whose updates are not even atomic compare-and-sets: the filter is evaluated
 * before the write, so two updates "matching" the same version can both succeed).
 *
 * - `resource_versions`: one immutable document per version, `_id` `<tenant>/<env>/<name>/<n>`,
 *   unique on (tenant, environment, name, version). Inserting version N+1 is the commit point
 *   of a change, and the unique index is the race arbiter: of concurrent changes from version
 *   N exactly one insert succeeds, the others get a duplicate-key error (a version conflict).
 * - `resources`: one head per resource, `_id` `<tenant>/<env>/<name>`, a copy of its newest
 *   version written after the row. The head is a hint that makes "current" a point read:
 *   readers start at the head and probe the next version's row, so a head left behind (a crash
 *   after the insert, or a slow head write overtaken by a newer one) is never served; the
 *   reader that notices rewrites the head.
 *
 * Versions are dense: version N+1 is only inserted by a writer that found N current. Every
 * read is by `_id` (a point read even for FerretDB, which scans for any other filter).
 */
export class ResourceStore {
  readonly #heads: Collection<VersionDocument>;
  readonly #versions: Collection<VersionDocument>;
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
    this.#heads = db.collection<VersionDocument>(COLLECTIONS.heads);
    this.#versions = db.collection<VersionDocument>(COLLECTIONS.versions);
  }

  static readonly indexes: IndexPlan = {
    [COLLECTIONS.heads]: [
      { key: { tenant: 1, environment: 1, name: 1 }, name: 'resource', unique: true },
    ],
    [COLLECTIONS.versions]: [
      {
        key: { tenant: 1, environment: 1, name: 1, version: 1 },
        name: 'resource_version',
        unique: true,
      },
    ],
  };

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.#db, ResourceStore.indexes);
  }

  /** The newest version (possibly a tombstone), or undefined for a resource never applied. */
  async current(ref: ResourceRef): Promise<VersionRecord | undefined> {
    const doc = await this.#heads.findOne({ _id: resourceId(ref) });
    return this.#probe(ref, doc === null ? undefined : fromVersionDocument(doc));
  }

  /** One version, or undefined when it does not exist. */
  async version(ref: ResourceRef, version: number): Promise<VersionRecord | undefined> {
    const doc = await this.#versions.findOne({ _id: versionId(ref, version) });
    return doc === null ? undefined : fromVersionDocument(doc);
  }

  /** Several versions of one resource, in the order asked; each must exist. */
  async versions(ref: ResourceRef, versions: number[]): Promise<VersionRecord[]> {
    const found = await Promise.all(versions.map((v) => this.version(ref, v)));
    return found.map((record, i) => {
      if (record === undefined)
        throw new Error(`history of ${resourceId(ref)} has no version ${versions[i]}`);
      return record;
    });
  }

  /**
   * Commits `next` (whose version is one more than the version its writer found current).
   * Returns false when another change committed that version first; nothing is written then.
   */
  async commit(next: VersionRecord): Promise<boolean> {
    try {
      await this.#versions.insertOne(toVersionDocument(versionId(next, next.version), next));
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
    await this.#writeHead(next);
    // A newer version may have committed while the head was written; make sure it is not behind.
    await this.current(next);
    return true;
  }

  /** The newest version of every resource, for loading the catalog and reconciling. */
  async allCurrent(): Promise<VersionRecord[]> {
    const heads = (await this.#heads.find({}).toArray()).map((doc) => fromVersionDocument(doc));
    const current: VersionRecord[] = new Array<VersionRecord>(heads.length);
    let next = 0;
    const lanes = Array.from({ length: Math.min(PROBE_CONCURRENCY, heads.length) }, async () => {
      for (let i = next++; i < heads.length; i = next++) {
        const head = heads[i] as VersionRecord;
        current[i] = (await this.#probe(head, head)) ?? head;
      }
    });
    await Promise.all(lanes);
    return current;
  }

  /** Follows rows past `head` to the newest version, rewriting a head that was behind. */
  async #probe(
    ref: ResourceRef,
    head: VersionRecord | undefined,
  ): Promise<VersionRecord | undefined> {
    let newest = head;
    for (;;) {
      const next = await this.version(ref, (newest?.version ?? 0) + 1);
      if (next === undefined) break;
      newest = next;
    }
    if (newest !== undefined && newest !== head) await this.#writeHead(newest);
    return newest;
  }

  async #writeHead(record: VersionRecord): Promise<void> {
    const id = resourceId(record);
    const doc = toVersionDocument(id, record);
    const replaced = await this.#heads.replaceOne(
      { _id: id, version: { $lt: record.version } },
      doc,
    );
    if (replaced.matchedCount > 0) return;
    try {
      await this.#heads.insertOne(doc);
    } catch (err) {
      // The head exists at this version or a newer one.
      if (!isDuplicateKey(err)) throw err;
    }
  }
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}
