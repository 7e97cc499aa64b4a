import type { JsonObject } from '@bufbuild/protobuf';
import type { Collection, Db } from 'mongodb';
import { ensureIndexes } from '@tollgate/kit';
import { insertNew } from '@tollgate/kit';
import type { FieldReport } from './proposal.js';
import type { Warning } from './warnings.js';

/** Where a draft stands; `expired` is derived from `expiresAt` for pending drafts. */
export type DraftStatus = 'pending' | 'confirmed' | 'rejected' | 'expired';

/** A proposed resource awaiting confirmation. */
export interface DraftRecord {
  id: string;
  tenant: string;
  environment: string;
  name: string;
  descriptor: JsonObject;
  fields: FieldReport[];
  /** All warnings, blocking ones included. */
  warnings: Warning[];
  /** Findings that stop the draft from being confirmed. */
  blocking: Warning[];
  confirmable: boolean;
  echo: string;
  status: Exclude<DraftStatus, 'expired'>;
  sessionId: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  decidedBy: string;
  reason: string;
  /** Version made by Confirm (0 until confirmed). */
  version: number;
}

/** Stored form: descriptor and fields as JSON text (field names may contain dots). */
interface DraftDocument {
  _id: string;
  tenant: string;
  environment: string;
  name: string;
  descriptor: string;
  fields: string;
  warnings: Warning[];
  blocking: Warning[];
  confirmable: boolean;
  echo: string;
  sessionId: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
}

/** The decision on a draft, `_id` the draft's id: inserting it is what decides. */
interface DecisionDocument {
  _id: string;
  status: 'confirmed' | 'rejected';
  decidedBy: string;
  reason: string;
  version: number;
  decidedAt: Date;
}

const DECISIONS: ReadonlyArray<DecisionDocument['status']> = ['confirmed', 'rejected'];

/**
 * Drafts in MongoDB: the proposal (`resource_drafts`, never updated) and its decision
 * (`resource_draft_decisions`, `_id` the draft id). A decision is taken by inserting it, so of
 * two concurrent Confirm/Reject calls exactly one wins (updates with a status filter are not
 * atomic compare-and-sets on FerretDB).
 */
export class DraftStore {
  readonly #drafts: Collection<DraftDocument>;
  readonly #decisions: Collection<DecisionDocument>;
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
    this.#drafts = db.collection<DraftDocument>('resource_drafts');
    this.#decisions = db.collection<DecisionDocument>('resource_draft_decisions');
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.#db, {
      resource_drafts: [
        { key: { tenant: 1, environment: 1, createdAt: -1 }, name: 'scope_created' },
      ],
    });
  }

  /** Stores a new, pending draft. */
  async insert(draft: DraftRecord): Promise<void> {
    const {
      id,
      descriptor,
      fields,
      status: _status,
      decidedBy: _by,
      reason: _reason,
      version: _version,
      ...rest
    } = draft;
    await this.#drafts.insertOne({
      _id: id,
      ...rest,
      descriptor: JSON.stringify(descriptor),
      fields: JSON.stringify(fields),
    });
  }

  async get(id: string): Promise<DraftRecord | undefined> {
    const [doc, decision] = await Promise.all([
      this.#drafts.findOne({ _id: id }),
      this.#decisions.findOne({ _id: id }),
    ]);
    return doc === null ? undefined : fromDraftDocument(doc, decision);
  }

  /**
   * Deletes drafts (and their decisions) that expired before `before`, `batchSize` ids at a
   * time; returns how many drafts were deleted. Decisions go first, so a pass cut short leaves
   * at worst an undecided draft past its expiry (which reads as expired), never an orphaned
   * decision. Every query is a scan on FerretDB, hence the bounded batches by `_id`.
   */
  async purgeExpired(before: Date, batchSize: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const batch = await this.#drafts
        .find({ expiresAt: { $lt: before } }, { projection: { _id: 1 } })
        .limit(batchSize)
        .toArray();
      if (batch.length === 0) return deleted;
      const ids = batch.map((doc) => doc._id);
      await this.#decisions.deleteMany({ _id: { $in: ids } });
      const result = await this.#drafts.deleteMany({
        _id: { $in: ids },
        expiresAt: { $lt: before },
      });
      deleted += result.deletedCount;
      if (batch.length < batchSize) return deleted;
    }
  }

  /** Decides a draft; false when it was already decided. */
  async decide(
    id: string,
    decision: Pick<DraftRecord, 'decidedBy' | 'reason' | 'version'> & {
      status: 'confirmed' | 'rejected';
    },
  ): Promise<boolean> {
    return insertNew(this.#decisions, { _id: id, ...decision, decidedAt: new Date() });
  }
}

function fromDraftDocument(doc: DraftDocument, decision: DecisionDocument | null): DraftRecord {
  const bad = (field: string): Error =>
    new Error(`stored draft ${String(doc._id)} is malformed: ${field}`);
  for (const field of [
    'tenant',
    'environment',
    'name',
    'descriptor',
    'fields',
    'echo',
    'sessionId',
    'createdBy',
  ] as const) {
    if (typeof doc[field] !== 'string') throw bad(`${field} is not a string`);
  }
  if (decision !== null) {
    if (
      !DECISIONS.includes(decision.status) ||
      typeof decision.decidedBy !== 'string' ||
      typeof decision.reason !== 'string'
    ) {
      throw bad('its decision');
    }
    if (!Number.isSafeInteger(decision.version)) throw bad('the version of its decision');
  }
  if (!(doc.createdAt instanceof Date) || !(doc.expiresAt instanceof Date))
    throw bad('a timestamp is not a date');
  if (!Array.isArray(doc.warnings) || !Array.isArray(doc.blocking))
    throw bad('warnings are not lists');
  if (typeof doc.confirmable !== 'boolean') throw bad('confirmable is not a boolean');
  let descriptor: unknown;
  let fields: unknown;
  try {
    descriptor = JSON.parse(doc.descriptor);
    fields = JSON.parse(doc.fields);
  } catch {
    throw bad('descriptor or fields are not JSON');
  }
  if (typeof descriptor !== 'object' || descriptor === null || Array.isArray(descriptor))
    throw bad('descriptor is not an object');
  if (!Array.isArray(fields)) throw bad('fields are not a list');
  const { _id, ...rest } = doc;
  return {
    ...rest,
    id: _id,
    descriptor: descriptor as JsonObject,
    fields: fields as FieldReport[],
    status: decision?.status ?? 'pending',
    decidedBy: decision?.decidedBy ?? '',
    reason: decision?.reason ?? '',
    version: decision?.version ?? 0,
  };
}
