import type { Collection, Db, Filter } from 'mongodb';
import { ensureIndexes, insertNew } from '@tollgate/kit';
import { decided } from '../approvals/record.js';
import type { ApprovalDecision, ApprovalRecord } from '../approvals/record.js';
import {
  readApprovalDocument,
  readDecisionDocument,
  toApprovalDocument,
} from './approval-documents.js';
import type { Stored } from './versioned.js';

export const APPROVAL_COLLECTIONS = {
  approvals: 'approvals',
  decisions: 'approval_decisions',
} as const;

/** Where a page of pending approvals starts: after this (requestedAt, id). */
export interface PendingCursor {
  requestedAt: number;
  id: string;
}

export interface PendingQuery {
  tenant: string;
  /** Empty = every resource. */
  resource: string;
  now: Date;
  after: PendingCursor | undefined;
  limit: number;
}

/**
 * Approvals and their decisions. An approval is inserted once (its id is `_id`). Its decision
 * is a second document with the same `_id` in `approval_decisions`: inserting it is the one
 * compare-and-set that settles the approval (approve, reject and expiry race on it, exactly
 * one wins), since updates are not atomic on FerretDB. The approval's own `status` is a
 * projection written after the decision and repaired by any reader that finds it behind.
 * `publishedAt` on the decision is the outbox mark for `approval.decided`.
 */
export class ApprovalStore {
  readonly #approvals: Collection<Stored>;
  readonly #decisions: Collection<Stored>;
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
    this.#approvals = db.collection(APPROVAL_COLLECTIONS.approvals);
    this.#decisions = db.collection(APPROVAL_COLLECTIONS.decisions);
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.#db, {
      [APPROVAL_COLLECTIONS.approvals]: [
        { key: { tenant: 1, status: 1, requestedAt: 1 }, name: 'pending_by_tenant' },
        { key: { status: 1, expiresAt: 1 }, name: 'expiry' },
      ],
      [APPROVAL_COLLECTIONS.decisions]: [{ key: { publishedAt: 1 }, name: 'outbox' }],
    });
  }

  /** Records a new approval; returns the one already stored under its id instead, if any. */
  async insert(record: ApprovalRecord): Promise<{ inserted: true } | { existing: ApprovalRecord }> {
    if (await insertNew(this.#approvals, toApprovalDocument(record))) return { inserted: true };
    const existing = await this.get(record.id);
    if (existing === undefined)
      throw new Error(`approval ${record.id} vanished after a duplicate insert`);
    return { existing };
  }

  /** One approval with its decision, or undefined. */
  async get(id: string): Promise<ApprovalRecord | undefined> {
    const doc = await this.#approvals.findOne({ _id: id });
    if (doc === null) return undefined;
    const record = readApprovalDocument(doc);
    if (record.status !== 'pending') return record;
    const row = await this.#decisions.findOne({ _id: id });
    if (row === null) return record;
    const decision = readDecisionDocument(row).decision;
    await this.#project(id, decision);
    return decided(record, decision);
  }

  /**
   * Settles a pending approval. Returns false when it was already settled (by anyone, in any
   * way); nothing is written then.
   */
  async settle(record: ApprovalRecord, decision: ApprovalDecision): Promise<boolean> {
    const row = { _id: record.id, tenant: record.tenant, ...decision, publishedAt: null };
    if (!(await insertNew(this.#decisions, row))) return false;
    await this.#project(record.id, decision);
    return true;
  }

  /** Marks the decision's `approval.decided` event as stored on JetStream. */
  async markPublished(id: string, at: Date): Promise<void> {
    await this.#decisions.updateOne({ _id: id }, { $set: { publishedAt: at } });
  }

  /** Pending, unexpired approvals of a tenant, oldest first. Settled ones are skipped (and repaired). */
  async pendingPage(query: PendingQuery): Promise<{ records: ApprovalRecord[]; more: boolean }> {
    const filter: Filter<Stored> = {
      tenant: query.tenant,
      status: 'pending',
      expiresAt: { $gt: query.now },
      ...(query.resource === '' ? {} : { resource: query.resource }),
    };
    if (query.after !== undefined) {
      const at = new Date(query.after.requestedAt);
      filter.$or = [
        { requestedAt: { $gt: at } },
        { requestedAt: at, _id: { $gt: query.after.id } },
      ];
    }
    const docs = await this.#approvals
      .find(filter)
      .sort({ requestedAt: 1, _id: 1 })
      .limit(query.limit + 1)
      .toArray();
    const more = docs.length > query.limit;
    const page = docs.slice(0, query.limit).map(readApprovalDocument);
    const settled = await this.#decisionsOf(page.map((r) => r.id));
    for (const [id, decision] of settled) await this.#project(id, decision);
    return { records: page.filter((r) => !settled.has(r.id)), more };
  }

  /** Pending approvals whose expiry has passed, oldest expiry first. */
  async overdue(now: Date, limit: number): Promise<ApprovalRecord[]> {
    const docs = await this.#approvals
      .find({ status: 'pending', expiresAt: { $lte: now } })
      .sort({ expiresAt: 1 })
      .limit(limit)
      .toArray();
    return docs.map(readApprovalDocument);
  }

  /** Ids of decisions made before `before` whose event is not yet stored. */
  async unpublished(before: Date, limit: number): Promise<string[]> {
    const rows = await this.#decisions
      .find({ publishedAt: null, decidedAt: { $lte: before } }, { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    return rows.map((row) => String(row._id));
  }

  async #decisionsOf(ids: string[]): Promise<Map<string, ApprovalDecision>> {
    if (ids.length === 0) return new Map();
    const rows = await this.#decisions.find({ _id: { $in: ids } }).toArray();
    return new Map(rows.map((row) => readDecisionDocument(row)).map((d) => [d.id, d.decision]));
  }

  async #project(id: string, decision: ApprovalDecision): Promise<void> {
    await this.#approvals.updateOne(
      { _id: id, status: 'pending' },
      {
        $set: {
          status: decision.status,
          decidedBy: decision.decidedBy,
          reason: decision.reason,
          decidedAt: decision.decidedAt,
        },
      },
    );
  }
}
