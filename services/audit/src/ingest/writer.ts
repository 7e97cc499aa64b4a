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

  constructor(options: { store: AuditStore; now?: () => Date }) {
    this.#store = options.store;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * Appends drafts of one chain, in order. `suspects` are indexes of drafts that may be stored
   * already (redelivered messages); they are looked up first, together. Throws when the store
   * is unavailable; calling again with the same drafts is safe (what was stored is recognised
   * as duplicates).
   */
  async append(
    tenant: string,
    drafts: readonly RecordDraft[],
    suspects: ReadonlySet<number> = new Set(),
  ): Promise<AppendResult> {
    const result: AppendResult = { stored: [], duplicates: [], refused: [] };
    let pending = uniqueInBatch(drafts, result);
    const suspected = pending.filter((p) => suspects.has(p.index)).map((p) => p.draft._id);
    if (suspected.length > 0) {
      const stored = await this.#store.existingIds(suspected);
      pending = dropStored(pending, stored, result);
    }
    let head = await this.#head(tenant);
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
          head = await this.#store.lastRecordHead(tenant);
          const stored = await this.#store.existingIds(pending.map((p) => p.draft._id));
          pending = dropStored(pending, stored, result);
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
        head = written > 0 ? headOf(docs[written - 1]!) : head;
        if (outcome.kind === 'inserted') break;
        if (outcome.kind === 'refused') {
          result.refused.push({ index: pending[written]!.index, reason: outcome.message });
          pending = pending.slice(written + 1);
        } else if (await this.#store.hasRecord(pending[written]!.draft._id)) {
          // This event is stored already; the head is right, go on after it.
          result.duplicates.push(pending[written]!.index);
          pending = pending.slice(written + 1);
        } else {
          // The head was stale (a crash, or another writer): find it from the records.
          pending = pending.slice(written);
          recovering = true;
        }
      }
    } catch (err) {
      // Some prefix may be stored: forget the head so the next append starts from the records.
      this.#heads.delete(tenant);
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
