import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/chain/canonical.js';
import { ChainWalk, GENESIS, linkRecords, recordHash } from '../src/chain/chain.js';
import { draftRecord } from '../src/ingest/draft.js';
import type { AuditDocument } from '../src/record.js';
import { callCompleted } from './support/events.js';

const at = new Date('2026-03-01T10:00:00.000Z');

function chainOf(n: number): AuditDocument[] {
  const drafts = Array.from({ length: n }, (_, i) =>
    draftRecord(callCompleted({ callId: `c-${i}` })),
  );
  return linkRecords(GENESIS, drafts, at);
}

function walk(docs: AuditDocument[]) {
  const w = new ChainWalk(GENESIS);
  for (const doc of docs) if (w.next(doc)) break;
  return w;
}

describe('chain', () => {
  it('canonical - keys sorted at every level, no whitespace, dates as RFC 3339', () => {
    expect(canonicalJson({ b: [2, { y: 1, x: null }], a: 'é', d: new Date(0), u: undefined })).toBe(
      '{"a":"é","b":[2,{"x":null,"y":1}],"d":"1970-01-01T00:00:00.000Z"}',
    );
    expect(() => canonicalJson({ n: Number.NaN })).toThrow('NaN is not JSON');
    expect(() => canonicalJson({ n: 1n })).toThrow('a bigint is not JSON');
  });

  it('chain - records get consecutive sequences, each linked to the previous hash', () => {
    const docs = chainOf(3);
    expect(docs.map((d) => d.seq)).toEqual([1, 2, 3]);
    expect(docs[0]!.prev_hash).toBe('');
    expect(docs[1]!.prev_hash).toBe(docs[0]!.hash);
    expect(docs[2]!.prev_hash).toBe(docs[1]!.hash);
    expect(docs.every((d) => /^[0-9a-f]{64}$/.test(d.hash))).toBe(true);
    expect(docs[2]!.hash).toBe(recordHash(docs[2]!));
  });

  it('chain - the hash does not depend on key order (a document read back verifies)', () => {
    const [doc] = chainOf(1);
    const reordered = Object.fromEntries(
      Object.entries(doc!).reverse(),
    ) as unknown as AuditDocument;
    expect(recordHash(reordered)).toBe(doc!.hash);
  });

  it('chain - an intact chain walks to its head', () => {
    const docs = chainOf(5);
    const w = walk(docs);
    expect(w.broken).toBeUndefined();
    expect(w.checked).toBe(5);
    expect(w.head).toEqual({ seq: 5, hash: docs[4]!.hash });
  });

  it('chain - a changed field breaks the chain at that record', () => {
    const docs = chainOf(5);
    docs[2] = { ...docs[2]!, status: 'error' };
    expect(walk(docs).broken).toEqual({
      seq: 3,
      reason: "hash does not match the record's contents (it was changed)",
    });
  });

  it('chain - a changed event text breaks the chain at that record', () => {
    const docs = chainOf(4);
    docs[1] = { ...docs[1]!, event: docs[1]!.event.replace('open', 'closed') };
    expect(walk(docs).broken?.seq).toBe(2);
  });

  it('chain - a rewritten record with a recomputed hash breaks the link after it', () => {
    const docs = chainOf(4);
    const forged = { ...docs[1]!, agent: 'someone_else' };
    docs[1] = { ...forged, hash: recordHash(forged) };
    expect(walk(docs).broken).toEqual({
      seq: 3,
      reason:
        'prev_hash does not match the hash of record 2 (a record was changed, removed or inserted)',
    });
  });

  it('chain - a removed record is reported as missing', () => {
    const docs = chainOf(4);
    docs.splice(1, 1);
    expect(walk(docs).broken).toEqual({
      seq: 2,
      reason: 'record 2 is missing (next stored is 3)',
    });
  });

  it('chain - a sequence stored twice is reported', () => {
    const docs = chainOf(3);
    docs.splice(2, 0, { ...docs[1]!, _id: 'another' });
    expect(walk(docs).broken).toEqual({ seq: 2, reason: 'sequence 2 is stored more than once' });
  });

  it('chain - linking continues from a head', () => {
    const first = chainOf(2);
    const head = { seq: 2, hash: first[1]!.hash };
    const more = linkRecords(head, [draftRecord(callCompleted())], at);
    expect(more[0]).toMatchObject({ seq: 3, prev_hash: head.hash });
    expect(walk([...first, ...more]).checked).toBe(3);
  });
});
