import { GENESIS, linkRecords } from '../chain/chain.js';
import type { ChainHead } from '../chain/chain.js';
import type { AuditDocument, RecordDraft } from '../record.js';
import type { AuditStore } from '../store.js';

/** What became of each draft handed to `ChainWriter.append`, by its index in the input. */
export interface AppendResult {
  stored: AuditDocument[];
  /** Indexes of drafts already stored (redelivered or re-reported events). */
  duplicates: number[];
  /** Indexes of drafts Mongo refused to store, with its reason. */
  refused: Array<{ index: number; reason: string }>;
}

/** Attempts at placing one batch before concluding another writer keeps racing us. */
const MAX_RECOVERIES = 20;

/**
 * How many of a chain's latest record ids a writer remembers. It reads them in the one query
 * that also finds the chain's head — when it first meets a redelivered event of the chain, or
 * finds its head stale — since on FerretDB every query but an `_id` lookup scans the
 * collection (seconds each once a trail holds tens of thousands of records). A redelivered
 * event was stored, if at all, shortly before: at most `maxAckPending` events were
 * unacknowledged, and its ack was lost at most an ack wait ago. One older than this is still
 * refused by the unique `_id` and recognised then.
 */
export const RECENT_IDS = 10_000;
/** Chains whose recent ids are kept at once (the least recently used is forgotten first). */
const RECENT_CHAINS = 64;

/**
 * Appends records to per-tenant hash chains. One writer per process, one append per chain at a
 * time (the caller's job). The records are the source of truth: the unique `_id` refuses an
 * event stored before (it is skipped, the head is unchanged) and the unique index on
 * (tenant, seq) refuses a record placed on a stale head (the head is re-read from the records,
 * what is already stored dropped, the rest linked again). Nothing but records is needed to
 * recover from a crash at any point; two writers racing on a chain cannot fork it.
 */
export class ChainWriter {
  readonly #store: AuditStore;
  readonly #now: () => Date;
  readonly #heads = new Map<string, ChainHead>();
  /** Per chain, the ids of its latest records, oldest first (see `RECENT_IDS`). */
  readonly #recent = new Map<string, Set<string>>();
  readonly #recentIds: number;

  constructor(options: { store: AuditStore; now?: () => Date; recentIds?: number }) {
    this.#store = options.store;
    this.#now = options.now ?? (() => new Date());
    this.#recentIds = options.recentIds ?? RECENT_IDS;
  }

  /**
   * Appends drafts of one chain, in order. `suspects` are indexes of drafts that may be stored
   * already (redelivered messages); they are checked against the chain's latest record ids
   * (read from the store once, on the first suspect of the chain, see `RECENT_IDS`) rather
   * than looked up one batch at a time. A suspect stored
   * longer ago is refused by the unique `_id` on insert and recognised then. Throws when the
   * store is unavailable; calling again with the same drafts is safe (what was stored is
   * recognised as duplicates).
   */
  async append(
    tenant: string,
    drafts: readonly RecordDraft[],
    suspects: ReadonlySet<number> = new Set(),
  ): Promise<AppendResult> {
    const result: AppendResult = { stored: [], duplicates: [], refused: [] };
    let pending = uniqueInBatch(drafts, result);
    let head = await this.#head(tenant);
    if (pending.some((p) => suspects.has(p.index))) {
      if (!this.#recent.has(tenant)) head = await this.#read(tenant, head);
      pending = this.#dropRecent(tenant, pending, result);
    }
    let recoveries = 0;
    let recovering = false;
    try {
      while (pending.length > 0) {
        if (recovering) {
          if (++recoveries > MAX_RECOVERIES) {
            throw new Error(
              `chain ${tenant}: could not place records after ${MAX_RECOVERIES} tries`,
            );
          }
          // One read gives the head and the ids of what was stored after the stale one.
          head = await this.#read(tenant, head);
          pending = this.#dropRecent(tenant, pending, result);
          recovering = false;
          continue;
        }
        const docs = linkRecords(
          head,
          pending.map((p) => p.draft),
          this.#now(),
        );
        const outcome = await this.#store.insertRecords(docs);
        const written = outcome.kind === 'inserted' ? docs.length : outcome.index;
        result.stored.push(...docs.slice(0, written));
        this.#remember(tenant, docs.slice(0, written));
        head = written > 0 ? headOf(docs[written - 1]!) : head;
        if (outcome.kind === 'inserted') break;
        if (outcome.kind === 'refused') {
          result.refused.push({ index: pending[written]!.index, reason: outcome.message });
          pending = pending.slice(written + 1);
        } else {
          const id = pending[written]!.draft._id;
          const truth = this.#recent.has(tenant) ? head : await this.#read(tenant, head);
          if (truth.seq !== head.seq) {
            // The head was stale (a crash, or another writer), and the read found the real one.
            head = truth;
            pending = this.#dropRecent(tenant, pending.slice(written), result);
          } else if (this.#recent.get(tenant)?.has(id) || (await this.#store.hasRecord(id))) {
            // This event is stored already; the head is right, go on after it (and past the
            // others among the chain's recent records: a re-reported event seldom comes alone).
            result.duplicates.push(pending[written]!.index);
            pending = this.#dropRecent(tenant, pending.slice(written + 1), result);
          } else {
            // The head was stale (another writer since the read): read the records again.
            pending = pending.slice(written);
            recovering = true;
          }
        }
      }
    } catch (err) {
      // Some prefix may be stored: forget the head so the next append starts from the records.
      this.#heads.delete(tenant);
      this.#recent.delete(tenant);
      throw err;
    }
    this.#heads.set(tenant, head);
    if (result.stored.length > 0) await this.#saveHint(tenant, head);
    return result;
  }

  async #head(tenant: string): Promise<ChainHead> {
    const cached = this.#heads.get(tenant);
    if (cached) return cached;
    // A stale or missing hint only costs a duplicate-key round trip: the index has the truth.
    return (await this.#store.headHint(tenant)) ?? GENESIS;
  }

  /**
   * Reads the chain's records from `RECENT_IDS` before `from` to its end — one query — and
   * remembers their ids; returns the chain's head (the last record read, when beyond `from`).
   */
  async #read(tenant: string, from: ChainHead): Promise<ChainHead> {
    const { ids, last } = await this.#store.recordsFrom(tenant, from.seq - this.#recentIds + 1);
    const recent = new Set(ids);
    this.#trim(recent);
    this.#recent.delete(tenant);
    this.#recent.set(tenant, recent);
    for (const [chain] of this.#recent) {
      if (this.#recent.size <= RECENT_CHAINS) break;
      this.#recent.delete(chain);
    }
    return last !== undefined && last.seq > from.seq ? last : from;
  }

  /** `pending` without the drafts among the chain's remembered recent records. */
  #dropRecent(tenant: string, pending: Pending[], result: AppendResult): Pending[] {
    const recent = this.#recent.get(tenant);
    if (!recent) return pending;
    // Recently used: kept longest when chains are forgotten.
    this.#recent.delete(tenant);
    this.#recent.set(tenant, recent);
    const stored = new Set(pending.filter((p) => recent.has(p.draft._id)).map((p) => p.draft._id));
    return stored.size === 0 ? pending : dropStored(pending, stored, result);
  }

  /** Remembers stored records, for chains whose recent ids are being kept. */
  #remember(tenant: string, docs: readonly AuditDocument[]): void {
    const recent = this.#recent.get(tenant);
    if (!recent || docs.length === 0) return;
    for (const doc of docs) recent.add(doc._id);
    this.#trim(recent);
  }

  #trim(recent: Set<string>): void {
    for (const id of recent) {
      if (recent.size <= this.#recentIds) break;
      recent.delete(id);
    }
  }

  async #saveHint(tenant: string, head: ChainHead): Promise<void> {
    try {
      await this.#store.saveHeadHint(tenant, head);
    } catch {
      // The records are durable; a stale hint is corrected on the next append.
    }
  }
}

interface Pending {
  index: number;
  draft: RecordDraft;
}

/** Drafts with an id already seen earlier in the same batch are duplicates. */
function uniqueInBatch(drafts: readonly RecordDraft[], result: AppendResult): Pending[] {
  const seen = new Set<string>();
  const out: Pending[] = [];
  drafts.forEach((draft, index) => {
    if (seen.has(draft._id)) result.duplicates.push(index);
    else {
      seen.add(draft._id);
      out.push({ index, draft });
    }
  });
  return out;
}

function dropStored(
  pending: readonly Pending[],
  stored: ReadonlySet<string>,
  result: AppendResult,
): Pending[] {
  for (const p of pending) if (stored.has(p.draft._id)) result.duplicates.push(p.index);
  return pending.filter((p) => !stored.has(p.draft._id));
}

function headOf(doc: AuditDocument): ChainHead {
  return { seq: doc.seq, hash: doc.hash };
}
