import type { Collection, Db } from 'mongodb';
import { ensureIndexes, insertNew } from '@tollgate/kit';
import type { IndexPlan } from '@tollgate/kit';
import { fromVersionDocument, toVersionDocument } from './records.js';
import type { VersionDocument, VersionRecord } from './records.js';
import { resourceId, versionId } from './scope.js';
import type { ResourceRef } from './scope.js';

/** Collection names of the registry. */
export const COLLECTIONS = {
  versions: 'resource_versions',
  announcements: 'resource_announcements',
} as const;

/** A version whose `resource.changed` JetStream stored: written once, after the publish. */
interface AnnouncementDocument {
  _id: string;
  at: Date;
}

const FETCH_BATCH = 1000;

/** A resource and one of its versions. */
export interface VersionKey extends ResourceRef {
  version: number;
}

/**
 * Resource versions in MongoDB: one immutable document per version in `resource_versions`,
 * `_id` `<tenant>/<env>/<name>/<n>`, unique on (tenant, environment, name, version), never
 * updated or deleted. A resource's current version is its newest.
 *
 * Every change is a single insert of the next version, and the unique index is the race
 * arbiter: of concurrent changes from version N exactly one insert of N+1 succeeds, the others
 * get a duplicate-key error (a version conflict). Nothing else is written, so no crash leaves
 * a partial state, and no transaction is needed (FerretDB has none, and its updates are not
 * atomic compare-and-sets either: the filter is evaluated before the write, so two updates
 * "matching" the same version can both succeed).
 *
 * "Current" is found by probing the next version's row from one known to exist (the caller's
 * catalog); versions are dense, since N+1 is only written by a writer that found N current.
 * Reads are by `_id` or by the resource's key; FerretDB answers every query with a scan, which
 * is why there are no per-commit updates to keep a "current" pointer (an update scans, holding
 * the store's write lock meanwhile) and why whole-store questions are asked in one query.
 */
export class ResourceStore {
  readonly #versions: Collection<VersionDocument>;
  readonly #announcements: Collection<AnnouncementDocument>;
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
    this.#versions = db.collection<VersionDocument>(COLLECTIONS.versions);
    this.#announcements = db.collection<AnnouncementDocument>(COLLECTIONS.announcements);
  }

  static readonly indexes: IndexPlan = {
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

  /**
   * The newest version (possibly a tombstone), or undefined for a resource never applied.
   * `known`, a version known to exist, is where probing starts.
   */
  async current(ref: ResourceRef, known?: VersionRecord): Promise<VersionRecord | undefined> {
    let newest = known;
    for (;;) {
      const next = await this.version(ref, (newest?.version ?? 0) + 1);
      if (next === undefined) return newest;
      newest = next;
    }
  }

  /** One version, or undefined when it does not exist. */
  async version(ref: ResourceRef, version: number): Promise<VersionRecord | undefined> {
    const doc = await this.#versions.findOne({ _id: versionId(ref, version) });
    return doc === null ? undefined : fromVersionDocument(doc);
  }

  /** Versions `from` down to `to` (inclusive) of one resource, newest first, in one query. */
  async versions(ref: ResourceRef, from: number, to: number): Promise<VersionRecord[]> {
    const { tenant, environment, name } = ref;
    const docs = await this.#versions
      .find({ tenant, environment, name, version: { $gte: to, $lte: from } })
      .sort({ version: -1 })
      .toArray();
    if (docs.length !== from - to + 1) {
      throw new Error(
        `history of ${resourceId(ref)} is missing versions between ${to} and ${from}`,
      );
    }
    return docs.map((doc) => fromVersionDocument(doc));
  }

  /**
   * Commits `next` (one more than the version its writer found current). Returns false when
   * another change committed that version first; nothing is written then.
   */
  async commit(next: VersionRecord): Promise<boolean> {
    return insertNew(this.#versions, toVersionDocument(versionId(next, next.version), next));
  }

  /** The newest version number of every resource, from one pass over the versions' keys. */
  async newestVersions(): Promise<Map<string, VersionKey>> {
    const newest = new Map<string, VersionKey>();
    const keys = this.#versions.find(
      {},
      { projection: { _id: 0, tenant: 1, environment: 1, name: 1, version: 1 } },
    );
    for await (const key of keys) {
      const id = resourceId(key);
      if ((newest.get(id)?.version ?? 0) < key.version) {
        const { tenant, environment, name, version } = key;
        newest.set(id, { tenant, environment, name, version });
      }
    }
    return newest;
  }

  /** Many versions by key, in a few queries (missing ones are left out). */
  async fetch(keys: VersionKey[]): Promise<VersionRecord[]> {
    const records: VersionRecord[] = [];
    for (let i = 0; i < keys.length; i += FETCH_BATCH) {
      const ids = keys.slice(i, i + FETCH_BATCH).map((key) => versionId(key, key.version));
      const docs = await this.#versions.find({ _id: { $in: ids } }).toArray();
      records.push(...docs.map((doc) => fromVersionDocument(doc)));
    }
    return records;
  }

  /**
   * Records that `resource.changed` of a version was stored on JetStream. Like versions, an
   * announcement is one insert and never changes (recording it twice is a no-op).
   */
  async recordAnnounced(key: VersionKey): Promise<void> {
    await insertNew(this.#announcements, { _id: versionId(key, key.version), at: new Date() });
  }

  /** Those of `keys` whose announcement was never recorded, in a few queries. */
  async unannounced(keys: VersionKey[]): Promise<VersionKey[]> {
    const missing: VersionKey[] = [];
    for (let i = 0; i < keys.length; i += FETCH_BATCH) {
      const batch = keys.slice(i, i + FETCH_BATCH);
      const ids = batch.map((key) => versionId(key, key.version));
      const found = await this.#announcements
        .find({ _id: { $in: ids } }, { projection: { _id: 1 } })
        .toArray();
      const announced = new Set(found.map((doc) => doc._id));
      missing.push(...batch.filter((key) => !announced.has(versionId(key, key.version))));
    }
    return missing;
  }
}
