import { createHash } from 'node:crypto';
import type { AuditDocument, RecordDraft } from '../record.js';
import { canonicalJson } from './canonical.js';

/** The last record of a chain (sequence 0 and an empty hash before the first). */
export interface ChainHead {
  seq: number;
  hash: string;
}

export const GENESIS: ChainHead = { seq: 0, hash: '' };

/** SHA-256 (hex) of the canonical JSON of every field of the record except `hash` itself. */
export function recordHash(doc: Omit<AuditDocument, 'hash'> | AuditDocument): string {
  const body: Record<string, unknown> = { ...doc };
  delete body.hash;
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}

/** Places drafts after `head`, in order: consecutive sequences, each linked to the one before. */
export function linkRecords(
  head: ChainHead,
  drafts: readonly RecordDraft[],
  recordedAt: Date,
): AuditDocument[] {
  const out: AuditDocument[] = [];
  let prev = head;
  for (const draft of drafts) {
    const unhashed = { ...draft, seq: prev.seq + 1, prev_hash: prev.hash, recorded_at: recordedAt };
    const doc: AuditDocument = { ...unhashed, hash: recordHash(unhashed) };
    out.push(doc);
    prev = { seq: doc.seq, hash: doc.hash };
  }
  return out;
}

/** The first record of a chain that does not check out, and why. */
export interface ChainBreak {
  seq: number;
  reason: string;
}

/**
 * Walks a chain in sequence order from just after `start`: each record must come next, link
 * to its predecessor's hash and hash to its own `hash`. Stops at the first break.
 */
export class ChainWalk {
  #head: ChainHead;
  #checked = 0;
  #broken: ChainBreak | undefined;

  constructor(start: ChainHead) {
    this.#head = start;
  }

  get checked(): number {
    return this.#checked;
  }

  get head(): ChainHead {
    return this.#head;
  }

  get broken(): ChainBreak | undefined {
    return this.#broken;
  }

  /** Checks the next record; returns the break (also kept in `broken`) or undefined. */
  next(doc: AuditDocument): ChainBreak | undefined {
    if (this.#broken) return this.#broken;
    const expected = this.#head.seq + 1;
    if (doc.seq < expected) {
      return this.#fail(doc.seq, `sequence ${doc.seq} is stored more than once`);
    }
    if (doc.seq > expected) {
      return this.#fail(expected, `record ${expected} is missing (next stored is ${doc.seq})`);
    }
    if (doc.prev_hash !== this.#head.hash) {
      return this.#fail(
        doc.seq,
        `prev_hash does not match the hash of record ${this.#head.seq} (a record was changed, removed or inserted)`,
      );
    }
    if (recordHash(doc) !== doc.hash) {
      return this.#fail(doc.seq, `hash does not match the record's contents (it was changed)`);
    }
    this.#checked++;
    this.#head = { seq: doc.seq, hash: doc.hash };
    return undefined;
  }

  /** Continues the walk after `head` (a record checked by other means). */
  restart(head: ChainHead): void {
    this.#head = head;
  }

  /** Records a break found outside `next` (e.g. a record that is not a record at all). */
  fail(seq: number, reason: string): ChainBreak {
    return this.#fail(seq, reason);
  }

  #fail(seq: number, reason: string): ChainBreak {
    this.#broken = { seq, reason };
    return this.#broken;
  }
}
