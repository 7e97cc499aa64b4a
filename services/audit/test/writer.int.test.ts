import { create } from '@bufbuild/protobuf';
import { VerifyRequestSchema } from '@tollgate/contracts/audit/v1';
import { connectMongo } from '@tollgate/kit';
import type { MongoHandle } from '@tollgate/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditTrail } from '../src/audit.js';
import { GENESIS, linkRecords } from '../src/chain/chain.js';
import { draftRecord } from '../src/ingest/draft.js';
import { ChainWriter } from '../src/ingest/writer.js';
import type { AuditDocument } from '../src/record.js';
import { AuditStore, collections } from '../src/store.js';
import { callCompleted } from './support/events.js';
import { sharedMongoUrl } from './support/harness.js';
import { uniqueName } from './support/servers.js';

let mongo: MongoHandle;
let store: AuditStore;

beforeAll(async () => {
  mongo = await connectMongo(`${sharedMongoUrl}/${uniqueName('audit_writer')}`);
  store = new AuditStore(mongo.db);
  await store.ensureIndexes();
});

afterAll(async () => {
  await mongo?.db.dropDatabase().catch(() => {});
  await mongo?.close();
});

const drafts = (tenant: string, n: number) =>
  Array.from({ length: n }, (_, i) => draftRecord(callCompleted({ tenant, callId: `c-${i}` })));
const records = () => mongo.db.collection<AuditDocument>(collections.records);
const verify = (tenant: string) =>
  new AuditTrail({ store }).verify(tenant, create(VerifyRequestSchema, {}));

/** The store, noting each call the writer makes to it (insert outcomes, reads, lookups). */
function watchedStore(calls: string[]): AuditStore {
  class WatchedStore extends AuditStore {
    override async insertRecords(docs: readonly AuditDocument[]) {
      const outcome = await super.insertRecords(docs);
      calls.push(`insert:${outcome.kind}`);
      return outcome;
    }
    override async recordsFrom(chain: string, fromSeq: number) {
      calls.push('recordsFrom');
      return super.recordsFrom(chain, fromSeq);
    }
    override async lastRecordHead(chain: string) {
      calls.push('lastRecordHead');
      return super.lastRecordHead(chain);
    }
    override async hasRecord(id: string) {
      calls.push('hasRecord');
      return super.hasRecord(id);
    }
  }
  return new WatchedStore(mongo.db);
}

describe('audit writer', () => {
  it('store - an insert that hits a stored record stores exactly the records before it', async () => {
    const tenant = 'prefix';
    const docs = linkRecords(GENESIS, drafts(tenant, 500), new Date());
    await records().insertOne(docs[150]!);
    expect(await store.insertRecords(docs)).toEqual({ kind: 'duplicate', index: 150 });
    const stored = await records().find({ tenant }).sort({ seq: 1 }).toArray();
    expect(stored.map((d) => d.seq)).toEqual([...docs.slice(0, 150).map((d) => d.seq), 151]);
  });

  it('writer - records already stored in the middle of a batch are skipped and the chain stays whole', async () => {
    const tenant = 'middle';
    const all = drafts(tenant, 500);
    // An earlier run stored the event at index 250 (as its first record) before crashing.
    const [first] = linkRecords(GENESIS, [all[250]!], new Date());
    await records().insertOne(first!);
    await store.saveHeadHint(tenant, { seq: 1, hash: first!.hash });
    const result = await new ChainWriter({ store }).append(tenant, all);
    expect(result.duplicates).toEqual([250]);
    expect(result.stored).toHaveLength(499);
    expect(await records().countDocuments({ tenant })).toBe(500);
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 500n });
  });

  it('writer - redelivered events are looked up before inserting, in one go', async () => {
    const tenant = 'suspects';
    const all = drafts(tenant, 40);
    await new ChainWriter({ store }).append(tenant, all.slice(0, 20));
    const outcomes: string[] = [];
    class WatchedStore extends AuditStore {
      override async insertRecords(docs: readonly AuditDocument[]) {
        const outcome = await super.insertRecords(docs);
        outcomes.push(outcome.kind);
        return outcome;
      }
    }
    const writer = new ChainWriter({ store: new WatchedStore(mongo.db) });
    const redelivered = new Set(Array.from({ length: 30 }, (_, i) => i));
    const result = await writer.append(tenant, all, redelivered);
    expect(result.duplicates).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(outcomes).toEqual(['inserted']);
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 40n });
  });

  it('writer - once it has read the recent ids of a chain, redelivered events cost no lookup and re-reported ones one failed insert', async () => {
    const tenant = 'warm';
    const all = drafts(tenant, 90);
    await new ChainWriter({ store }).append(tenant, all.slice(0, 30));
    const calls: string[] = [];
    const writer = new ChainWriter({ store: watchedStore(calls) });
    const every = (n: number) => new Set(Array.from({ length: n }, (_, i) => i));
    // Redelivered after a restart: 10 stored, 10 new; the chain's recent ids are read once.
    expect((await writer.append(tenant, all.slice(20, 40), every(20))).duplicates).toHaveLength(10);
    // Redelivered again (an ack lost): the writer knows its own records.
    expect((await writer.append(tenant, all.slice(30, 50), every(20))).duplicates).toHaveLength(10);
    // Re-reported, not marked: the first duplicate fails an insert, the rest are known.
    expect((await writer.append(tenant, all.slice(40, 70))).duplicates).toHaveLength(10);
    expect(calls).toEqual([
      'recordsFrom',
      'insert:inserted',
      'insert:inserted',
      'insert:duplicate',
      'insert:inserted',
    ]);
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 70n });
  });

  it('writer - a redelivered event stored before the remembered window is still refused by its id, once', async () => {
    const tenant = 'window';
    const all = drafts(tenant, 40);
    await new ChainWriter({ store }).append(tenant, all.slice(0, 30));
    const writer = new ChainWriter({ store, recentIds: 5 });
    // Event 2 is far older than the 5 remembered ids; events 28, 29 are among them.
    const redelivered = [all[2]!, all[28]!, all[29]!, ...all.slice(30)];
    const result = await writer.append(tenant, redelivered, new Set([0, 1, 2]));
    expect(result.duplicates.sort()).toEqual([0, 1, 2]);
    expect(result.stored.map((d) => d.seq)).toEqual(Array.from({ length: 10 }, (_, i) => 31 + i));
    expect(await records().countDocuments({ tenant })).toBe(40);
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 40n });
  });

  it('writer - a stale or missing head is corrected from the records', async () => {
    const tenant = 'stale';
    const all = drafts(tenant, 30);
    await new ChainWriter({ store }).append(tenant, all.slice(0, 10));
    await store.saveHeadHint(tenant, { seq: 3, hash: 'stale' });
    const result = await new ChainWriter({ store }).append(tenant, all);
    expect(result.duplicates).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(result.stored.map((d) => d.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 11 + i));
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 30n });
  });

  it('writer - restarted after a crash with a stale head hint, one read of the records gives the head and what is stored', async () => {
    const tenant = 'crashed';
    const all = drafts(tenant, 40);
    await new ChainWriter({ store }).append(tenant, all.slice(0, 20));
    // Killed after an insert, before its hint was saved.
    await store.saveHeadHint(tenant, { seq: 12, hash: 'stale' });
    const calls: string[] = [];
    const writer = new ChainWriter({ store: watchedStore(calls) });
    // Its unacknowledged events come again: 15..19 were stored, 20..29 were not.
    const redelivered = all.slice(15, 30);
    const result = await writer.append(tenant, redelivered, new Set(redelivered.map((_, i) => i)));
    expect(result.duplicates).toEqual([0, 1, 2, 3, 4]);
    expect(result.stored.map((d) => d.seq)).toEqual(Array.from({ length: 10 }, (_, i) => 21 + i));
    expect(calls).toEqual(['recordsFrom', 'insert:inserted']);
    // Not a suspect, after a stale hint: the clash is resolved by that same kind of read.
    await store.saveHeadHint(tenant, { seq: 25, hash: 'stale' });
    calls.length = 0;
    const fresh = new ChainWriter({ store: watchedStore(calls) });
    expect((await fresh.append(tenant, all.slice(30))).stored.map((d) => d.seq)).toEqual(
      Array.from({ length: 10 }, (_, i) => 31 + i),
    );
    expect(calls).toEqual(['insert:duplicate', 'recordsFrom', 'insert:inserted']);
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 40n });
  });

  it('writer - two writers racing on one chain never fork it', async () => {
    const tenant = 'race';
    const all = drafts(tenant, 400);
    const [a, b] = [new ChainWriter({ store }), new ChainWriter({ store })];
    await Promise.all([a.append(tenant, all.slice(0, 250)), b.append(tenant, all.slice(150))]);
    expect(await records().countDocuments({ tenant })).toBe(400);
    expect(await verify(tenant)).toMatchObject({ ok: true, checked: 400n });
  });
});
