/**
 * What memory learns from must have happened: a completed call counts only as the audit trail
 * records it — a `call.completed` record with status ok in the tenant's hash chain, the chain
 * checked from memory's last checked position up to that record (or from the record up to that
 * position). A message on the bus, or a call a session snapshot claims, is only a pointer: the
 * call memory learns from is read back from the audit record, so a forged event or an invented
 * session call teaches nothing. Memory reads the records (audit's own collection, in the same
 * database) and never writes them.
 */
import { fromJson } from '@bufbuild/protobuf';
import type { JsonValue as ProtoJson } from '@bufbuild/protobuf';
import { EventEnvelopeSchema } from '@tollgate/contracts/events/v1';
import { isDuplicateKey } from '@tollgate/kit';
import { ChainWalk, collections, parseAuditDocument } from '@tollgate/service-audit';
import type { AuditDocument, ChainHead } from '@tollgate/service-audit';
import type { Collection, Db } from 'mongodb';
import { readCallEvent } from './call-reading.js';
import type { CompletedCall } from './learner.js';

/** How the audit trail answers for one call. */
export type AuditReading =
  /** Recorded, ok, in a chain that checks out: the call as audit holds it. */
  | { kind: 'audited'; call: CompletedCall; seq: number }
  /** No ok outcome of that call in the trail (not yet, or never). */
  | { kind: 'absent' }
  /** Recorded, but not to be learnt from (the chain breaks, the record is malformed, …). */
  | { kind: 'refused'; reason: string };

/** Where memory has checked a tenant's chain up to. */
interface Checkpoint {
  _id: string;
  seq: number;
  hash: string;
}

export class AuditTrail {
  readonly #records: Collection<AuditDocument>;
  readonly #checkpoints: Collection<Checkpoint>;

  constructor(db: Db) {
    this.#records = db.collection<AuditDocument>(collections.records);
    this.#checkpoints = db.collection<Checkpoint>('memory_audit_checkpoints');
  }

  /** The call `callId` of `tenant` as the audit trail records its ok outcome. */
  async completedCall(tenant: string, callId: string): Promise<AuditReading> {
    return (await this.completedCalls(tenant, [callId]))[0] ?? { kind: 'absent' };
  }

  /**
   * The calls `callIds` of `tenant` as the audit trail records their ok outcomes, in order; the
   * chain is checked once, through all of them.
   */
  async completedCalls(tenant: string, callIds: readonly string[]): Promise<AuditReading[]> {
    const found = await Promise.all(
      callIds.map((callId) =>
        this.#records.findOne({ tenant, call_id: callId, type: 'call.completed', status: 'ok' }),
      ),
    );
    const docs: Array<AuditDocument | undefined> = [];
    for (const raw of found) {
      if (raw === null) {
        docs.push(undefined);
        continue;
      }
      try {
        docs.push(parseAuditDocument(raw));
      } catch (err) {
        const reason = (err as Error).message;
        return callIds.map(() => ({ kind: 'refused', reason }));
      }
    }
    const present = docs.filter((d): d is AuditDocument => d !== undefined);
    if (present.length === 0) return callIds.map(() => ({ kind: 'absent' }));
    const broken = await this.#check(tenant, present);
    if (broken !== undefined) return callIds.map(() => ({ kind: 'refused', reason: broken }));
    return docs.map((doc, i) =>
      doc === undefined ? { kind: 'absent' } : readRecord(doc, tenant, callIds[i] ?? ''),
    );
  }

  /**
   * Checks the chain through `docs`; returns why it breaks, or undefined. The walk starts at
   * the checkpoint when every record is past it, else at the earliest record (linked to its
   * predecessor's hash), and ends at the checkpoint or at the record after the last one,
   * whichever is later (so a record rewritten with a recomputed hash breaks its successor's
   * link): it must pass the checkpoint with the hash the checkpoint was left at, and each
   * record with that record's hash. The checkpoint then moves to where the walk ended.
   */
  async #check(tenant: string, docs: readonly AuditDocument[]): Promise<string | undefined> {
    const stored = await this.#checkpoints.findOne({ _id: tenant });
    const mark: ChainHead = stored ? { seq: stored.seq, hash: stored.hash } : { seq: 0, hash: '' };
    const sorted = [...docs].sort((a, b) => a.seq - b.seq);
    const first = sorted[0]!;
    const last = sorted[sorted.length - 1]!;
    const start: ChainHead =
      first.seq > mark.seq ? mark : { seq: first.seq - 1, hash: first.prev_hash };
    const endSeq = Math.max(last.seq, mark.seq);
    const through = Math.max(last.seq + 1, mark.seq);
    const expected = new Map(sorted.map((d) => [d.seq, d.hash]));
    if (mark.seq > start.seq) expected.set(mark.seq, mark.hash);
    const walk = new ChainWalk(start);
    const cursor = this.#records
      .find({ tenant, seq: { $gt: start.seq, $lte: through } })
      .sort({ seq: 1 })
      .batchSize(1000);
    try {
      for await (const raw of cursor) {
        let record: AuditDocument;
        try {
          record = parseAuditDocument(raw);
        } catch (err) {
          return `record ${String((raw as { seq?: unknown }).seq)}: ${(err as Error).message}`;
        }
        const broken = walk.next(record);
        if (broken) return `the audit chain breaks at ${broken.seq}: ${broken.reason}`;
        const hash = expected.get(record.seq);
        if (hash !== undefined && hash !== record.hash) {
          return `the audit chain does not pass record ${record.seq} as it was read or checked`;
        }
      }
    } finally {
      await cursor.close();
    }
    if (walk.head.seq < endSeq) {
      return `the audit chain ends at ${walk.head.seq}, before record ${endSeq}`;
    }
    if (walk.head.seq > mark.seq) await this.#advance(tenant, walk.head);
    return undefined;
  }

  async #advance(tenant: string, head: ChainHead): Promise<void> {
    try {
      await this.#checkpoints.updateOne(
        { _id: tenant, seq: { $lt: head.seq } },
        { $set: { seq: head.seq, hash: head.hash } },
        { upsert: true },
      );
    } catch (err) {
      // A checkpoint at or past `head` is already there: nothing to move.
      if (!isDuplicateKey(err)) throw err;
    }
  }
}

/** The completed call an audit record holds, checked against what it was looked up by. */
function readRecord(doc: AuditDocument, tenant: string, callId: string): AuditReading {
  let event;
  try {
    event = fromJson(EventEnvelopeSchema, JSON.parse(doc.event) as ProtoJson);
  } catch (err) {
    return {
      kind: 'refused',
      reason: `record ${doc.seq}: the event is unreadable: ${(err as Error).message}`,
    };
  }
  const reading = readCallEvent(event);
  if (!reading.ok) return { kind: 'refused', reason: `record ${doc.seq}: ${reading.reason}` };
  const call = reading.call;
  if (!call.ok || call.callId !== callId || call.owner.tenant !== tenant) {
    return { kind: 'refused', reason: `record ${doc.seq} does not hold that call's ok outcome` };
  }
  return { kind: 'audited', call, seq: doc.seq };
}
