import type { Collection, Db } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { ensureIndexes } from '@tollgate/kit';
import type { IndexPlan, Logger } from '@tollgate/kit';
import { fromVersionDocument, toVersionDocument } from './records.js';
import type { VersionDocument, VersionRecord } from './records.js';
import { resourceId, versionId } from './scope.js';
import type { ResourceRef } from './scope.js';

/** Collection names of the registry. */
export const COLLECTIONS = { heads: 'resources', versions: 'resource_versions' } as const;

const DUPLICATE_KEY = 11000;

/**
 * Resource versions in MongoDB, designed for stores without multi-document transactions
 * (FerretDB, whose updates are not even atomic compare-and-sets: the filter is evaluated
 * before the write, so two updates "matching" the same version can both succeed). Every
 * commit is therefore an insert, arbitrated by a unique index; exactly one concurrent writer
 * wins, the others get a duplicate-key error (a version conflict).
 *
 * - `resources`: one head per resource, `_id` `<tenant>/<env>/<name>`, a copy of its newest
 *   version. Inserting the head is the commit point of a new resource.
 * - `resource_versions`: one immutable document per version, `_id` `<tenant>/<env>/<name>/<n>`,
 *   unique on (tenant, environment, name, version). Inserting version N+1 is the commit point
 *   of every later change.
 *
 * After a change the head is rewritten behind the commit (off the request path: updates scan
 * the collection on FerretDB). The head is a hint that makes "current" a point read: readers
 * start at it and probe the next version's row, so a head left behind (not yet written, lost to
 * a crash, overtaken by a slower write) is never served, and whoever notices rewrites it.
 *
 * A crash can leave two gaps, and neither is visible: a new resource's head without its first
 * row (reading version 1 falls back to the head, and the next change writes the row first),
 * and a row without its head update (readers probe past the head). Versions are dense: version
 * N+1 is only written by a writer that found N current, after making sure N's row exists.
 * Every read is by `_id` (a point read even on FerretDB, which scans for any other filter).
 */
export class ResourceStore {
  readonly #heads: Collection<VersionDocument>;
  readonly #versions: Collection<VersionDocument>;
  readonly #db: Db;
  readonly #headWriter: HeadWriter;

  constructor(db: Db, logger?: Logger) {
    this.#db = db;
    this.#heads = db.collection<VersionDocument>(COLLECTIONS.heads);
    this.#versions = db.collection<VersionDocument>(COLLECTIONS.versions);
    this.#headWriter = new HeadWriter((record) => this.#writeHead(record), logger);
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

  /**
   * The newest version (possibly a tombstone), or undefined for a resource never applied.
   * `known`, a version known to be committed (e.g. from the catalog), saves reading the head:
   * probing starts after it.
   */
  async current(ref: ResourceRef, known?: VersionRecord): Promise<VersionRecord | undefined> {
    if (known !== undefined) return this.#probe(ref, known);
    const doc = await this.#heads.findOne({ _id: resourceId(ref) });
    return this.#probe(ref, doc === null ? undefined : fromVersionDocument(doc));
  }

  /** One version, or undefined when it does not exist. */
  async version(ref: ResourceRef, version: number): Promise<VersionRecord | undefined> {
    const doc = await this.#versions.findOne({ _id: versionId(ref, version) });
    if (doc !== null) return fromVersionDocument(doc);
    const current = await this.current(ref);
    return current?.version === version ? current : undefined;
  }

  /**
   * Versions `from` down to `to` (inclusive) of one resource, newest first: one range query.
   * Each must exist (versions are dense).
   */
  async versions(ref: ResourceRef, from: number, to: number): Promise<VersionRecord[]> {
    const docs = await this.#versions
      .find({
        tenant: ref.tenant,
        environment: ref.environment,
        name: ref.name,
        version: { $gte: to, $lte: from },
      })
      .sort({ version: -1 })
      .toArray();
    const found = new Map(docs.map((doc) => [doc.version, doc]));
    const records: VersionRecord[] = [];
    for (let v = from; v >= to; v--) {
      const doc = found.get(v);
      // Only a first version can lack its row (its head is written first).
      const record = doc === undefined ? await this.version(ref, v) : fromVersionDocument(doc);
      if (record === undefined)
        throw new Error(`history of ${resourceId(ref)} has no version ${v}`);
      records.push(record);
    }
    return records;
  }

  /**
   * Commits `next` if `current` (what its writer found current; undefined for a new resource)
   * still is. Returns false when another change got there first; nothing is written then.
   */
  async commit(current: VersionRecord | undefined, next: VersionRecord): Promise<boolean> {
    if (current === undefined) {
      try {
        await this.#heads.insertOne(toVersionDocument(resourceId(next), next));
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
      await this.#writeRow(next);
      return true;
    }
    // Only a first version can lack its row (its head is written first).
    if (current.version === 1) await this.#writeRow(current);
    try {
      await this.#versions.insertOne(toVersionDocument(versionId(next, next.version), next));
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
    this.#headWriter.schedule(next);
    return true;
  }

  /** Waits for head writes in flight (shutdown, tests). */
  flush(): Promise<void> {
    return this.#headWriter.flush();
  }

  /**
   * Every head, for loading the catalog and reconciling. With `catchUp`, heads a crash left
   * behind their newest row are found (one pass over the versions' keys, not one read per
   * resource) and replaced by that row.
   */
  async allHeads(catchUp: boolean): Promise<VersionRecord[]> {
    const heads = (await this.#heads.find({}).toArray()).map((doc) => fromVersionDocument(doc));
    if (!catchUp) return heads;
    const newest = new Map<string, number>();
    const keys = this.#versions.find(
      {},
      { projection: { _id: 0, tenant: 1, environment: 1, name: 1, version: 1 } },
    );
    for await (const row of keys) {
      const id = resourceId(row);
      if ((newest.get(id) ?? 0) < row.version) newest.set(id, row.version);
    }
    return Promise.all(
      heads.map(async (head) => {
        const latest = newest.get(resourceId(head)) ?? 0;
        return latest > head.version ? ((await this.#probe(head, head)) ?? head) : head;
      }),
    );
  }

  /** Follows rows past `head` to the newest version, rewriting a head that was behind. */
  async #probe(
    ref: ResourceRef,
    head: VersionRecord | undefined,
  ): Promise<VersionRecord | undefined> {
    let newest = head;
    for (;;) {
      const doc = await this.#versions.findOne({ _id: versionId(ref, (newest?.version ?? 0) + 1) });
      if (doc === null) break;
      newest = fromVersionDocument(doc);
    }
    if (newest !== undefined && newest !== head) this.#headWriter.schedule(newest);
    return newest;
  }

  /** Writes a version's row unless it exists (idempotent). */
  async #writeRow(record: VersionRecord): Promise<void> {
    try {
      await this.#versions.insertOne(toVersionDocument(versionId(record, record.version), record));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
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

/**
 * Writes heads behind commits, one at a time (on FerretDB each write scans the collection and
 * holds the write lock meanwhile, so parallel head writes would queue commits behind them). Only
 * the newest waiting version of a resource is written; older ones are superseded. A failed
 * write leaves the head behind, which readers tolerate; it is logged.
 */
class HeadWriter {
  /** Newest waiting version per resource, in the order resources were first scheduled. */
  readonly #waiting = new Map<string, VersionRecord>();
  #worker: Promise<void> | undefined;

  constructor(
    private readonly write: (record: VersionRecord) => Promise<void>,
    private readonly logger: Logger | undefined,
  ) {}

  schedule(record: VersionRecord): void {
    const id = resourceId(record);
    const waiting = this.#waiting.get(id);
    if (waiting === undefined || waiting.version < record.version) this.#waiting.set(id, record);
    this.#worker ??= Promise.resolve().then(() => this.#drain());
  }

  async flush(): Promise<void> {
    while (this.#worker !== undefined) await this.#worker;
  }

  async #drain(): Promise<void> {
    for (let next = this.#first(); next !== undefined; next = this.#first()) {
      try {
        await this.write(next);
      } catch (err) {
        this.logger?.warn(
          { resource: resourceId(next), err: { message: (err as Error).message } },
          'resource head not written; readers probe past it',
        );
      }
    }
    this.#worker = undefined;
  }

  #first(): VersionRecord | undefined {
    const first = this.#waiting.entries().next();
    if (first.done === true) return undefined;
    this.#waiting.delete(first.value[0]);
    return first.value[1];
  }
}
