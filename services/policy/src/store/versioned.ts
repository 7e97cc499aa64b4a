import type { Collection, Db, Document, Filter } from 'mongodb';
import { insertNew } from '@tollgate/kit';

/** Every document the policy service stores has a string `_id`. */
export interface Stored extends Document {
  _id: string;
}

/** How rows of one versioned collection are keyed, stored and read back. */
export interface RowCodec<R extends { version: number }> {
  /** The identity all versions of one thing share, e.g. `<tenant>/<name>`. */
  key(row: R): string;
  toDocument(id: string, row: R): Stored;
  /** Reads a stored row back, checking every field; throws naming the document and field. */
  fromDocument(doc: unknown): R;
}

/** Collection names: one head per thing, one immutable row per version. */
export interface VersionedNames {
  heads: string;
  versions: string;
}

/**
 * Immutable versions in MongoDB for stores without multi-document transactions, whose updates
 * are not atomic compare-and-sets either (FerretDB evaluates an update's filter before writing,
 * so two updates "matching" the same version can both succeed).
 *
 * - versions: one document per version, `_id` `<key>/<n>`. Inserting version N+1 is the commit
 *   point of a change and `_id` uniqueness the race arbiter: of concurrent writers that found N
 *   current, exactly one insert succeeds; the others get a duplicate key (a lost race).
 * - heads: `_id` `<key>`, a copy of the newest version written after the row. It is a hint that
 *   makes "current" a point read: readers probe the next version's row, so a head left behind (a
 *   crash after the insert, a slow head write overtaken) is never served, and is repaired.
 */
export class VersionedCollection<R extends { version: number }> {
  readonly #heads: Collection<Stored>;
  readonly #versions: Collection<Stored>;
  readonly #codec: RowCodec<R>;

  constructor(db: Db, names: VersionedNames, codec: RowCodec<R>) {
    this.#heads = db.collection(names.heads);
    this.#versions = db.collection(names.versions);
    this.#codec = codec;
  }

  /**
   * The head alone (one read): the newest version as of the last completed commit. Writers
   * start from it; a lost race (the next version exists) sends them to `current`.
   */
  async head(key: string): Promise<R | undefined> {
    const doc = await this.#heads.findOne({ _id: key });
    return doc === null ? undefined : this.#codec.fromDocument(doc);
  }

  /** The newest version (probing past the head, repairing it), or undefined when none. */
  async current(key: string): Promise<R | undefined> {
    const doc = await this.#heads.findOne({ _id: key });
    return this.#probe(key, doc === null ? undefined : this.#codec.fromDocument(doc));
  }

  async version(key: string, version: number): Promise<R | undefined> {
    const doc = await this.#versions.findOne({ _id: `${key}/${version}` });
    return doc === null ? undefined : this.#codec.fromDocument(doc);
  }

  /**
   * Commits `row`; false when another writer committed that version first (nothing written).
   * With `settleHead`, it returns only once the head holds this version or a newer one (a
   * concurrent, slower head write of an older version is undone), which is what makes `head`
   * and `headsWhere` current as of the last completed commit.
   */
  async commit(row: R, options: { settleHead?: boolean } = {}): Promise<boolean> {
    if (!(await this.insert(row))) return false;
    const key = this.#codec.key(row);
    await this.writeHead(row);
    if (options.settleHead === true) {
      const head = await this.head(key);
      if (head === undefined || head.version < row.version) await this.current(key);
    }
    return true;
  }

  /** Inserts the version row alone (the commit point); false when it exists already. */
  async insert(row: R): Promise<boolean> {
    const key = this.#codec.key(row);
    return insertNew(this.#versions, this.#codec.toDocument(`${key}/${row.version}`, row));
  }

  /** Moves the head to `row` unless it holds a newer version. */
  async writeHead(row: R): Promise<void> {
    const key = this.#codec.key(row);
    const doc = this.#codec.toDocument(key, row);
    const replaced = await this.#heads.replaceOne({ _id: key, version: { $lt: row.version } }, doc);
    if (replaced.matchedCount > 0) return;
    // Not inserted: the head exists at this version or a newer one.
    await insertNew(this.#heads, doc);
  }

  /**
   * The heads matching `filter`, without probing for newer rows: one query. A head can trail
   * its newest row only while a commit is in flight (every commit repairs the head before it
   * returns), so this is current as of the last completed commit — what a bundle rebuild that
   * follows a commit needs.
   */
  async headsWhere(filter: Filter<Stored>): Promise<R[]> {
    return (await this.#heads.find(filter).toArray()).map((doc) => this.#codec.fromDocument(doc));
  }

  /** Whether any head matches `filter`. */
  async exists(filter: Filter<Stored>): Promise<boolean> {
    return (await this.#heads.findOne(filter, { projection: { _id: 1 } })) !== null;
  }

  /** Distinct values of a string field over the heads. */
  async distinct(field: string): Promise<string[]> {
    const values = await this.#heads.distinct(field);
    return values.filter((v): v is string => typeof v === 'string');
  }

  async #probe(key: string, head: R | undefined): Promise<R | undefined> {
    let newest = head;
    for (;;) {
      const next = await this.version(key, (newest?.version ?? 0) + 1);
      if (next === undefined) break;
      newest = next;
    }
    if (newest !== undefined && newest !== head) await this.writeHead(newest);
    return newest;
  }
}
