import { MongoBulkWriteError } from 'mongodb';
import type { Collection, Db, Filter } from 'mongodb';
import { DUPLICATE_KEY, ensureIndexes, insertNew } from '@tollgate/kit';
import type { IndexPlan } from '@tollgate/kit';
import { GENESIS } from './chain/chain.js';
import type { ChainHead } from './chain/chain.js';
import { parseAuditDocument } from './record.js';
import type { AuditDocument } from './record.js';

/** Where audit keeps its state. Records are append-only: nothing here updates or deletes one. */
export const collections = {
  records: 'audit_records',
  /** Per chain, the last record written: a hint that saves a scan; the records decide. */
  heads: 'audit_chain_heads',
  deadLetters: 'audit_dead_letters',
} as const;

const indexes: IndexPlan = {
  [collections.records]: [
    { key: { tenant: 1, seq: 1 }, name: 'tenant_seq', unique: true },
    { key: { tenant: 1, session_id: 1, seq: 1 }, name: 'tenant_session' },
    { key: { tenant: 1, call_id: 1 }, name: 'tenant_call' },
    { key: { tenant: 1, occurred_at: 1 }, name: 'tenant_occurred' },
  ],
  [collections.deadLetters]: [{ key: { received_at: 1 }, name: 'received_at' }],
};

/** An event that could not be recorded, kept with its raw bytes for inspection or replay. */
export interface DeadLetter {
  /** `<stream>/<stream sequence>`: the same message is kept once. */
  _id: string;
  received_at: Date;
  subject: string;
  stream_sequence: number;
  deliveries: number;
  reason: string;
  /** What could be read of the envelope ('' when nothing could). */
  tenant: string;
  event_id: string;
  type: string;
  /** The message as received, base64. */
  data: string;
}

interface HeadHint {
  _id: string;
  seq: number;
  hash: string;
}

/** How an ordered insert of records ended. */
export type InsertOutcome =
  | { kind: 'inserted' }
  /** Records before `index` were inserted; the one at `index` hit a unique index. */
  | { kind: 'duplicate'; index: number }
  /** Records before `index` were inserted; Mongo refused the one at `index` for its content. */
  | { kind: 'refused'; index: number; message: string };

/** Records per insert command (see `insertRecords`). */
const INSERT_SLICE = 100;

export class AuditStore {
  readonly #records: Collection<AuditDocument>;
  readonly #heads: Collection<HeadHint>;
  readonly #deadLetters: Collection<DeadLetter>;

  constructor(readonly db: Db) {
    this.#records = db.collection<AuditDocument>(collections.records);
    this.#heads = db.collection<HeadHint>(collections.heads);
    this.#deadLetters = db.collection<DeadLetter>(collections.deadLetters);
  }

  /**
   * One index per call: FerretDB 1.24 drops the connection when a single createIndexes names
   * several indexes that already exist (every restart would fail).
   */
  async ensureIndexes(): Promise<void> {
    for (const [collection, list] of Object.entries(indexes)) {
      for (const index of list) await ensureIndexes(this.db, { [collection]: [index] });
    }
  }

  /**
   * Inserts records in order and stops at the first that fails, so what is stored is always a
   * prefix of `docs`. Errors other than a record's own (duplicate key, refused document) mean
   * the store is unavailable: they are thrown, and any prefix may have been written.
   *
   * Records go in slices of `INSERT_SLICE`: FerretDB 1.24 splits an insert into batches of 100
   * and, after a failing batch, still writes the following ones despite `ordered` — which would
   * leave records linked to predecessors that were never stored.
   */
  async insertRecords(docs: readonly AuditDocument[]): Promise<InsertOutcome> {
    for (let start = 0; start < docs.length; start += INSERT_SLICE) {
      const slice = docs.slice(start, start + INSERT_SLICE);
      try {
        await this.#records.insertMany(slice, { ordered: true });
      } catch (err) {
        const first = firstWriteError(err);
        if (!first) throw err;
        const index = start + first.index;
        if (first.code === DUPLICATE_KEY) return { kind: 'duplicate', index };
        return { kind: 'refused', index, message: first.message };
      }
    }
    return { kind: 'inserted' };
  }

  /** The last record of a chain according to the records themselves. */
  async lastRecordHead(tenant: string): Promise<ChainHead> {
    const [last] = await this.#records
      .find({ tenant }, { projection: { seq: 1, hash: 1 } })
      .sort({ seq: -1 })
      .limit(1)
      .toArray();
    return last ? { seq: last.seq, hash: last.hash } : GENESIS;
  }

  /**
   * Ids of a chain's records from sequence number `fromSeq` on, in chain order, and the last of
   * them: the chain's head, since the read is open-ended.
   */
  async recordsFrom(
    tenant: string,
    fromSeq: number,
  ): Promise<{ ids: string[]; last: ChainHead | undefined }> {
    const found = await this.#records
      .find(
        { tenant, seq: { $gte: Math.max(1, fromSeq) } },
        { projection: { _id: 1, seq: 1, hash: 1 } },
      )
      .sort({ seq: 1 })
      .toArray();
    const end = found.at(-1);
    return {
      ids: found.map((d) => d._id),
      last: end ? { seq: end.seq, hash: end.hash } : undefined,
    };
  }

  async hasRecord(id: string): Promise<boolean> {
    return (await this.#records.findOne({ _id: id }, { projection: { _id: 1 } })) !== null;
  }

  async headHint(tenant: string): Promise<ChainHead | undefined> {
    const hint = await this.#heads.findOne({ _id: tenant });
    if (!hint || typeof hint.seq !== 'number' || typeof hint.hash !== 'string') return undefined;
    return { seq: hint.seq, hash: hint.hash };
  }

  async saveHeadHint(tenant: string, head: ChainHead): Promise<void> {
    await this.#heads.updateOne(
      { _id: tenant },
      { $set: { seq: head.seq, hash: head.hash } },
      { upsert: true },
    );
  }

  /** Stores a dead letter; the same message stored twice is kept once. */
  async putDeadLetter(letter: DeadLetter): Promise<void> {
    await insertNew(this.#deadLetters, letter);
  }

  async deadLetters(limit = 1000): Promise<DeadLetter[]> {
    return this.#deadLetters.find({}).sort({ received_at: 1 }).limit(limit).toArray();
  }

  /** Records matching `filter`, in chain order, each checked for shape. */
  async *findRecords(
    filter: Filter<AuditDocument>,
    options: { limit?: number; projection?: Record<string, 0 | 1> } = {},
  ): AsyncGenerator<AuditDocument> {
    const cursor = this.#records
      .find(filter, options.projection ? { projection: options.projection } : {})
      .sort({ tenant: 1, seq: 1 })
      .batchSize(1000);
    if (options.limit !== undefined) cursor.limit(options.limit);
    try {
      for await (const raw of cursor) {
        yield options.projection ? raw : parseAuditDocument(raw);
      }
    } finally {
      await cursor.close();
    }
  }

  /** Raw documents of one chain from `fromSeq` in order, unchecked (Verify judges them). */
  async *chainDocuments(tenant: string, fromSeq: number, toSeq: number): AsyncGenerator<unknown> {
    const seq = toSeq > 0 ? { $gte: fromSeq, $lte: toSeq } : { $gte: fromSeq };
    const cursor = this.#records.find({ tenant, seq }).sort({ seq: 1 }).batchSize(1000);
    try {
      for await (const raw of cursor) yield raw;
    } finally {
      await cursor.close();
    }
  }

  async recordAt(tenant: string, seq: number): Promise<unknown> {
    return this.#records.findOne({ tenant, seq });
  }
}

function firstWriteError(
  err: unknown,
): { index: number; code: number; message: string } | undefined {
  if (err instanceof MongoBulkWriteError) {
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    const first = errors[0];
    if (first) return { index: first.index, code: first.code, message: first.errmsg ?? '' };
    return undefined;
  }
  return undefined;
}
