import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, RpcStatus } from '@tollgate/contracts';
import type { Principal } from '@tollgate/core';
import { DraftStore } from '../src/index.js';
import { eventually, resourceDescriptor, startHarness, uniqueTenant } from './harness.js';
import type { Harness, RegistryInstance } from './harness.js';

const TTL_MS = 60_000;
const RETENTION_MS = 3_600_000;
let h: Harness;
let now = Date.now();
let timed: RegistryInstance;

beforeAll(async () => {
  h = await startHarness();
  timed = await h.startInstance({
    clock: () => new Date(now),
    draftTtlMs: TTL_MS,
    draftRetentionMs: RETENTION_MS,
  });
});
afterAll(async () => {
  await h?.close();
});

const operator = (tenant: string): Principal => ({
  tenant,
  agent: 'operator',
  environment: 'prod',
});

/** A confirmable descriptor whose discovery fails fast (nothing listens on port 1). */
const descriptorOf = (tenant: string): never =>
  resourceDescriptor(tenant, 'es_orders', { endpoint: 'http://127.0.0.1:1' }) as never;

async function failure(call: Promise<unknown>): Promise<RpcError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

async function storedIds(collection: string, ids: string[]): Promise<string[]> {
  const docs = await h.mongo.db
    .collection<{ _id: string }>(collection)
    .find({ _id: { $in: ids } }, { projection: { _id: 1 } })
    .toArray();
  return docs.map((doc) => doc._id).sort();
}

describe('draft sweeper', () => {
  it('draft sweeper - one pass removes drafts expired beyond retention (with their decisions) and keeps fresh and recently expired ones', async () => {
    const tenant = uniqueTenant();
    const as = await h.as(operator(tenant));
    const base = now;
    const draft = async () =>
      (await timed.client.draft({ descriptor: descriptorOf(tenant) }, as)).draft!;

    const old = await draft();
    const oldConfirmed = await draft();
    expect(oldConfirmed.confirmable).toBe(true);
    await timed.client.confirm({ draftId: oldConfirmed.id }, as);
    now = base + RETENTION_MS;
    const recent = await draft();
    now = base + RETENTION_MS + TTL_MS + 2_000;
    const fresh = await draft();
    const all = [old.id, oldConfirmed.id, recent.id, fresh.id];
    expect(await storedIds('resource_drafts', all)).toEqual([...all].sort());
    expect(await storedIds('resource_draft_decisions', all)).toEqual([oldConfirmed.id]);

    expect(await timed.parts.draftSweeper.sweep()).toBe(2);
    expect(await storedIds('resource_drafts', all)).toEqual([recent.id, fresh.id].sort());
    expect(await storedIds('resource_draft_decisions', all)).toEqual([]);
    expect(await timed.parts.draftSweeper.sweep()).toBe(0);

    // A purged draft reads exactly like an unknown one: expired-or-unknown, nothing more.
    for (const id of [old.id, oldConfirmed.id, randomUUID()]) {
      const purged = await failure(timed.client.confirm({ draftId: id }, as));
      expect(purged.code).toBe(RpcStatus.NOT_FOUND);
      expect(purged.message).toBe(
        `Draft ${id} does not exist or expired long ago; propose the resource again with Draft.`,
      );
      expect((await failure(timed.client.reject({ draftId: id }, as))).code).toBe(
        RpcStatus.NOT_FOUND,
      );
    }
    const expired = await failure(timed.client.confirm({ draftId: recent.id }, as));
    expect(expired.code).toBe(RpcStatus.FAILED_PRECONDITION);
    expect(expired.message).toMatch(
      new RegExp(`^Draft ${recent.id} expired at .*; propose the resource again with Draft\\.$`),
    );
    const confirmed = await timed.client.confirm({ draftId: fresh.id }, as);
    expect(confirmed.draft?.id).toBe(fresh.id);
  });

  it('draft sweeper - a pass deletes in bounded batches until nothing past retention is left', async () => {
    const tenant = uniqueTenant();
    const as = await h.as(operator(tenant));
    const base = now;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await timed.client.draft({ descriptor: descriptorOf(tenant) }, as)).draft!.id);
    now = base + TTL_MS + RETENTION_MS + 1_000;
    const before = new Date(now - RETENTION_MS);
    expect(await new DraftStore(h.mongo.db).purgeExpired(before, 2)).toBeGreaterThanOrEqual(5);
    expect(await storedIds('resource_drafts', ids)).toEqual([]);
  });

  it('draft sweeper - the interval sweeps on its own and stops when the registry stops', async () => {
    const tenant = uniqueTenant();
    const as = await h.as(operator(tenant));
    // This instance lives two days ahead: every draft made with the real clock is long expired.
    const ahead = await h.startInstance({
      clock: () => new Date(Date.now() + 2 * 86_400_000),
      draftRetentionMs: 60_000,
      draftSweepIntervalMs: 50,
    });
    const first = (await h.client.draft({ descriptor: descriptorOf(tenant) }, as)).draft!;
    await eventually(async () =>
      (await storedIds('resource_drafts', [first.id])).length === 0 ? true : undefined,
    );

    await ahead.stop();
    const second = (await h.client.draft({ descriptor: descriptorOf(tenant) }, as)).draft!;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await storedIds('resource_drafts', [second.id])).toEqual([second.id]);
    expect((await h.client.confirm({ draftId: second.id }, as)).draft?.id).toBe(second.id);
  });
});
