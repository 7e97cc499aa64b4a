import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { RpcStatus, isRpcError } from '@tollgate/contracts';
import { PreferenceStatus } from '@tollgate/contracts/memory/v1';
import { parsePublishedMemoryItem } from '@tollgate/core';
import type { PublishedMemoryItem } from '@tollgate/core';
import { EventPublisher, createLogger, openBucket } from '@tollgate/kit';
import { BusAnnouncer } from '../src/announce.js';
import { DEFAULT_SETTINGS } from '../src/config.js';
import { Memory } from '../src/memory.js';
import { MemoryProjector } from '../src/projection/projector.js';
import { startMemory, uniqueName } from './harness.js';
import type { MemoryHarness } from './harness.js';

// `preferred_fields` is staged here unless a person states it in their own memory, so the
// gate's proposed → confirmed path can be seen in the bucket.
let h: MemoryHarness;
beforeAll(async () => {
  h = await startMemory({ autoKinds: ['frequent_resource'] });
});
afterAll(async () => {
  await h.close();
});

const value = (json: unknown) => fromJson(ValueSchema, json as never);
const ALICE = 'alice@example.com';
const ALICE_TOKEN = `u-${Buffer.from(ALICE).toString('base64url')}`;

async function rpcError(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    if (isRpcError(err))
      return { code: err.code, message: err.message, details: err.details as unknown[] };
    throw err;
  }
  throw new Error('expected the call to fail');
}

/** The live entry under `key`, read back through core's strict reader; undefined when none. */
async function entry(key: string): Promise<PublishedMemoryItem | undefined> {
  const e = await h.kv.get(key);
  if (e === null || e.operation !== 'PUT') return undefined;
  const item = parsePublishedMemoryItem(key, e.value);
  if ('invalid' in item) throw new Error(`${key}: ${item.invalid}`);
  return item;
}

const ordersOfCustomer = {
  description: 'Orders of one customer, newest first.',
  tool: 'es_orders_search',
  arguments: {
    filters: [{ field: 'user_id', op: 'eq', value: null }],
    sort: [{ field: 'created_at', order: 'desc' }],
  },
  parameters: [
    { name: 'user_id', path: '/filters/0/value', type: 'string', description: 'The customer.' },
  ],
};

describe('projection - saved queries', () => {
  it('projection - approving puts the entry, an approved edit replaces it, deleting removes it', async () => {
    const bot = await h.client({ agent: 'bot' });
    const reviewer = await h.client({ agent: 'console', user: 'alice' });
    const { savedQuery } = await bot.createSavedQuery({
      name: 'orders_of_customer',
      ...ordersOfCustomer,
    });
    const id = savedQuery!.id;
    const key = `sq.${h.tenant}.bot._.orders_of_customer`;
    expect(await entry(key)).toBeUndefined();

    const { savedQuery: approved } = await reviewer.approveSavedQuery({
      id,
      revision: 1,
      contentHash: savedQuery!.contentHash,
    });
    expect(await entry(key)).toEqual({
      kind: 'saved_query',
      id,
      tenant: h.tenant,
      agent: 'bot',
      user: '',
      name: 'orders_of_customer',
      revision: 1,
      contentHash: approved!.contentHash,
      ...ordersOfCustomer,
    });

    const { savedQuery: edit } = await bot.updateSavedQuery({
      id,
      ...ordersOfCustomer,
      description: 'Orders of one customer, oldest first.',
      arguments: { ...ordersOfCustomer.arguments, sort: [{ field: 'created_at', order: 'asc' }] },
      baseHash: approved!.contentHash,
    });
    // A proposed edit changes nothing in effect.
    expect(await entry(key)).toMatchObject({ revision: 1, contentHash: approved!.contentHash });
    await reviewer.approveSavedQuery({ id, revision: 2, contentHash: edit!.contentHash });
    expect(await entry(key)).toMatchObject({
      revision: 2,
      contentHash: edit!.contentHash,
      description: 'Orders of one customer, oldest first.',
      arguments: { sort: [{ field: 'created_at', order: 'asc' }] },
    });

    await bot.deleteSavedQuery({ id });
    expect(await entry(key)).toBeUndefined();
  });

  it("projection - a user's saved query is keyed by the u-<base64url> token of the user id", async () => {
    const botForAlice = await h.client({ agent: 'bot', user: ALICE });
    const reviewer = await h.client({ agent: 'console', user: ALICE });
    const { savedQuery } = await botForAlice.createSavedQuery({
      name: 'my_orders',
      user: ALICE,
      ...ordersOfCustomer,
    });
    await reviewer.approveSavedQuery({
      id: savedQuery!.id,
      revision: 1,
      contentHash: savedQuery!.contentHash,
    });
    expect(ALICE_TOKEN).toBe('u-YWxpY2VAZXhhbXBsZS5jb20');
    expect(await entry(`sq.${h.tenant}.bot.${ALICE_TOKEN}.my_orders`)).toMatchObject({
      id: savedQuery!.id,
      user: ALICE,
      name: 'my_orders',
    });
  });

  it('projection - a confirmed saved-query candidate is in the bucket as soon as it is created approved', async () => {
    const candidate = await h.memory.candidates.propose({
      owner: { tenant: h.tenant, agent: 'bot', user: '' },
      kind: 'saved_query',
      signal: uniqueName('shape'),
      proposal: { name: 'es_orders_search_by_user_id', ...ordersOfCustomer },
      summary: 'Save a query',
      confidence: 1,
      evidenceCallIds: ['c1', 'c2', 'c3'],
      proposedBy: { agent: 'bot', user: '' },
    });
    const reviewer = await h.client({ agent: 'console', user: 'alice' });
    const tooLong = 'q'.repeat(62);
    expect(
      await rpcError(reviewer.confirmCandidate({ id: candidate!.id, name: tooLong })),
    ).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      details: [
        expect.objectContaining({
          path: 'name',
          expected: 'at most 61 characters',
          found: '62 characters',
        }),
      ],
    });
    const { candidate: confirmed } = await reviewer.confirmCandidate({
      id: candidate!.id,
      name: 'orders_by_user',
    });
    expect(await entry(`sq.${h.tenant}.bot._.orders_by_user`)).toMatchObject({
      id: confirmed!.createdId,
      revision: 1,
      tool: 'es_orders_search',
    });
  });

  it('projection - saved-query names are at most 61 characters (the tool is sq_<name>), in requests and candidates', async () => {
    const bot = await h.client({ agent: 'bot' });
    const error = await rpcError(
      bot.createSavedQuery({ name: `a${'b'.repeat(61)}`, ...ordersOfCustomer }),
    );
    expect(error).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      details: [
        {
          path: 'name',
          message: expect.stringContaining('sq_<name>') as string,
          expected: 'at most 61 characters',
          found: '62 characters',
        },
      ],
    });
    const longest = `a${'b'.repeat(60)}`;
    const { savedQuery } = await bot.createSavedQuery({ name: longest, ...ordersOfCustomer });
    const reviewer = await h.client({ agent: 'console', user: 'alice' });
    await reviewer.approveSavedQuery({
      id: savedQuery!.id,
      revision: 1,
      contentHash: savedQuery!.contentHash,
    });
    expect(await entry(`sq.${h.tenant}.bot._.${longest}`)).toMatchObject({ name: longest });

    await expect(
      h.memory.candidates.propose({
        owner: { tenant: h.tenant, agent: 'bot', user: '' },
        kind: 'saved_query',
        signal: uniqueName('shape'),
        proposal: { name: `a${'b'.repeat(61)}`, ...ordersOfCustomer },
        summary: 'Save a query',
        confidence: 1,
        evidenceCallIds: ['c1'],
        proposedBy: { agent: 'bot', user: '' },
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: [expect.objectContaining({ path: 'name', expected: 'at most 61 characters' })],
    });
  });
});

describe('projection - preferred fields', () => {
  it('projection - a staged preference has no entry; confirmed it has; forgotten it is gone', async () => {
    const bot = await h.client({ agent: 'bot' });
    const { preference } = await bot.putPreference({
      key: 'preferred_fields:es_orders_search',
      kind: 'preferred_fields',
      value: value(['amount', 'id']),
    });
    expect(preference!.status).toBe(PreferenceStatus.PROPOSED);
    const key = `pf.${h.tenant}.bot._.es_orders_search`;
    expect(await entry(key)).toBeUndefined();

    const reviewer = await h.client({ agent: 'console', user: 'alice' });
    await reviewer.confirmPreference({ id: preference!.id });
    expect(await entry(key)).toEqual({
      kind: 'preferred_fields',
      id: preference!.id,
      tenant: h.tenant,
      agent: 'bot',
      user: '',
      tool: 'es_orders_search',
      fields: ['amount', 'id'],
    });

    await reviewer.forgetPreference({ id: preference!.id });
    expect(await entry(key)).toBeUndefined();
  });

  it("projection - a person's stated fields are in effect at once, corrected in place, and gone when replaced by another kind", async () => {
    const reviewer = await h.client({ agent: 'console', user: ALICE });
    const put = (kind: string, fields: string[]) =>
      reviewer.putPreference({
        key: 'preferred_fields:es_orders_get',
        kind,
        agent: 'bot',
        user: ALICE,
        ...(kind === 'free_text'
          ? { text: `Wants ${fields.join(' and ')}.` }
          : { value: value(fields) }),
      });
    const { preference } = await put('preferred_fields', ['id']);
    expect(preference!.status).toBe(PreferenceStatus.ACTIVE);
    const key = `pf.${h.tenant}.bot.${ALICE_TOKEN}.es_orders_get`;
    expect(await entry(key)).toMatchObject({ user: ALICE, fields: ['id'] });
    await put('preferred_fields', ['id', 'status']);
    expect(await entry(key)).toMatchObject({ id: preference!.id, fields: ['id', 'status'] });
    await put('free_text', ['id', 'status']);
    expect(await entry(key)).toBeUndefined();
  });

  it('projection - derived preferred fields are projected when the learner writes them', async () => {
    const owner = { tenant: h.tenant, agent: 'learner_bot', user: '' };
    const memory = new Memory({
      store: h.store,
      announcer: { announce: () => Promise.resolve() },
      audit: h.audit,
      settings: DEFAULT_SETTINGS,
      projection: h.projection,
      live: h.live,
    });
    expect(
      await memory.preferences.writeDerived({
        owner,
        environment: 'prod',
        key: 'preferred_fields:es_orders_search',
        kind: 'preferred_fields',
        value: ['created_at', 'id'],
        text: 'Prefers fields created_at, id for es_orders_search.',
        score: 3,
      }),
    ).toBe(true);
    expect(await entry(`pf.${h.tenant}.learner_bot._.es_orders_search`)).toMatchObject({
      fields: ['created_at', 'id'],
    });
  });
});

describe('projection - reconciler', () => {
  it('projection - a pass deletes keys nothing backs and puts missing or altered entries', async () => {
    const bot = await h.client({ agent: 'recon' });
    const reviewer = await h.client({ agent: 'console', user: 'alice' });
    const approve = async (name: string) => {
      const { savedQuery } = await bot.createSavedQuery({ name, ...ordersOfCustomer });
      await reviewer.approveSavedQuery({
        id: savedQuery!.id,
        revision: 1,
        contentHash: savedQuery!.contentHash,
      });
      return `sq.${h.tenant}.recon._.${name}`;
    };
    const missing = await approve('lost_entry');
    const altered = await approve('altered_entry');
    const kept = await approve('kept_entry');
    const stale = `sq.${h.tenant}.recon._.never_approved`;
    const wellFormed = await h.kv.get(altered);
    await h.kv.delete(missing);
    await h.kv.put(altered, JSON.stringify({ ...JSON.parse(wellFormed!.string()), tool: 'x' }));
    await h.kv.put(stale, wellFormed!.value);
    await h.kv.put('not.a.memory.key', 'junk');
    const keptRevision = (await h.kv.get(kept))!.revision;

    const report = await h.projection.reconcile();
    expect(report).toMatchObject({ repaired: 4, failed: 0 });
    expect(await entry(missing)).toMatchObject({ name: 'lost_entry' });
    expect(await entry(altered)).toMatchObject({ name: 'altered_entry', tool: 'es_orders_search' });
    expect(await entry(stale)).toBeUndefined();
    expect(await entry('not.a.memory.key')).toBeUndefined();
    expect((await h.kv.get(kept))!.revision).toBe(keptRevision);
    expect(await h.projection.reconcile()).toMatchObject({ repaired: 0, failed: 0 });
  });

  it('projection - a change whose bucket write failed still succeeds, and the reconciler converges it', async () => {
    const broken = await openBucket(h.nc, uniqueName('memory_test_gone'));
    await broken.destroy();
    const logger = createLogger({ service: 'memory-test', level: 'silent' });
    const memory = new Memory({
      store: h.store,
      announcer: new BusAnnouncer({ publisher: new EventPublisher(h.nc), store: h.store, logger }),
      audit: h.audit,
      settings: DEFAULT_SETTINGS,
      projection: new MemoryProjector({ kv: broken, store: h.store, logger }),
      live: h.live,
    });
    const owner = { tenant: h.tenant, agent: 'outage', user: '' };
    const view = await memory.savedQueries.createApproved({
      id: uniqueName('sq'),
      owner,
      name: 'during_outage',
      content: ordersOfCustomer,
      proposedBy: { agent: 'outage', user: '' },
      approver: { agent: 'console', user: 'alice' },
    });
    const key = `sq.${h.tenant}.outage._.during_outage`;
    expect(await entry(key)).toBeUndefined();
    await h.projection.reconcile();
    expect(await entry(key)).toMatchObject({ id: view.capability.id, revision: 1 });
  });
});
