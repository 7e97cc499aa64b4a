import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TollgateError } from '@tollgate/core';
import type { Caller } from '../src/access/review.js';
import type { CompletedCall } from '../src/learning/learner.js';
import type { JsonObject } from '../src/types.js';
import { startMemory, uniqueName } from './harness.js';
import type { MemoryHarness } from './harness.js';

// FerretDB's version-filtered findOneAndUpdate lets concurrent writers all match; these fire
// many writers at one document at once and check that each transition is taken exactly once.
const WRITERS = 10;

let h: MemoryHarness;
beforeAll(async () => {
  h = await startMemory({ autoKinds: ['frequent_resource'] });
});
afterAll(async () => {
  await h.close();
});

const as = (agent: string, user = ''): Caller =>
  h.memory.callerOf({
    tenant: h.tenant,
    agent,
    environment: 'prod',
    ...(user !== '' ? { user } : {}),
  });

/** Settles every promise, splitting results from errors (which must all be TollgateErrors). */
async function race<T>(runs: Array<() => Promise<T>>): Promise<{ won: T[]; codes: string[] }> {
  const settled = await Promise.allSettled(runs.map((run) => run()));
  const won: T[] = [];
  const codes: string[] = [];
  for (const result of settled) {
    if (result.status === 'fulfilled') won.push(result.value);
    else if (result.reason instanceof TollgateError) codes.push(result.reason.code);
    else throw result.reason;
  }
  return { won, codes };
}

/** Fields of the test resources (see live.ts). */
const FIELDS = [
  'id',
  'user_id',
  'customer_id',
  'amount',
  'created_at',
  'status',
  'currency',
  'email',
];

const times = <T>(n: number, run: () => Promise<T>) => Array.from({ length: n }, () => run);

describe('races - preferences', () => {
  it('races - concurrent confirms of one staged preference: one transition per version, the others are VERSION_CONFLICT', async () => {
    const staged = await h.memory.preferences.put(as('bot'), {
      key: 'language',
      kind: 'language',
      value: 'zh',
      text: '',
      user: '',
      agent: '',
      sessionId: '',
    });
    expect(staged.status).toBe('proposed');
    const written = h.written.length;
    const { won, codes } = await race(
      times(WRITERS, () => h.memory.preferences.confirm(as('console', 'alice'), staged.id)),
    );
    // Writers that read the staged version race for one transition; one that read after it
    // re-confirms the active fact, from the next version. No version is ever taken twice.
    expect(won.length).toBeGreaterThanOrEqual(1);
    expect(won.length + codes.length).toBe(WRITERS);
    expect(codes).toEqual(Array(codes.length).fill('VERSION_CONFLICT'));
    const versions = won.map((p) => p.version).sort((a, b) => a - b);
    expect(versions).toEqual(won.map((_, i) => staged.version + 1 + i));
    expect(won.every((p) => p.status === 'active')).toBe(true);
    const stored = await h.store.preferences.findOne({ _id: staged.id });
    expect(stored?.['version']).toBe(staged.version + won.length);
    // One announcement per transition.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const version of versions) {
      expect(
        h.written.slice(written).filter((w) => w.id === staged.id && w.version === version),
      ).toHaveLength(1);
    }
  });

  it('races - concurrent corrections of one fact lose no update: every success is its own version', async () => {
    const alice = as('bot', 'alice');
    const put = (n: number) => () =>
      h.memory.preferences.put(alice, {
        key: 'preferred_fields:es_orders_search',
        kind: 'preferred_fields',
        value: [FIELDS[n % FIELDS.length]!],
        text: '',
        user: 'alice',
        agent: '',
        sessionId: '',
      });
    const first = await put(0)();
    const { won, codes } = await race(Array.from({ length: WRITERS }, (_, i) => put(i + 1)));
    expect(won.length).toBeGreaterThanOrEqual(1);
    expect(new Set(codes)).toEqual(new Set(codes.length > 0 ? ['VERSION_CONFLICT'] : []));
    const versions = won.map((p) => p.version).sort((a, b) => a - b);
    expect(new Set(versions).size).toBe(won.length);
    const stored = await h.store.preferences.findOne({ _id: first.id });
    expect(stored?.['version']).toBe(first.version + won.length);
    // The value in effect is the one the last transition wrote.
    const last = won.find((p) => p.version === stored?.['version']);
    expect(JSON.parse(String(stored?.['valueJson']))).toEqual(last?.value);
    const count = await h.store.preferences.countDocuments({
      tenant: h.tenant,
      agent: 'bot',
      user: 'alice',
      key: 'preferred_fields:es_orders_search',
    });
    expect(count).toBe(1);
  });
});

describe('races - candidates', () => {
  const ordersByUser = {
    name: 'orders_by_user',
    description: 'Orders of one customer.',
    tool: 'es_orders_search',
    arguments: { filters: [{ field: 'user_id', op: 'eq', value: null }] },
    parameters: [
      { name: 'user_id', path: '/filters/0/value', type: 'string', description: 'The customer.' },
    ],
  };

  it('races - concurrent confirms of one candidate: one confirms and creates once, the others are VERSION_CONFLICT', async () => {
    const candidate = await h.memory.candidates.propose({
      owner: { tenant: h.tenant, agent: 'bot', user: '' },
      kind: 'saved_query',
      signal: uniqueName('shape'),
      proposal: ordersByUser,
      summary: 'Save orders_by_user',
      confidence: 1,
      evidenceCallIds: ['c1', 'c2', 'c3'],
      proposedBy: { agent: 'bot', user: '' },
    });
    const { won, codes } = await race(
      times(WRITERS, () =>
        h.memory.candidates.confirm(as('console', 'alice'), candidate!.id, {
          name: '',
          description: '',
        }),
      ),
    );
    expect(won).toHaveLength(1);
    expect(won[0]).toMatchObject({ status: 'confirmed', createdId: `c-${candidate!.id}` });
    expect(codes).toEqual(Array(WRITERS - 1).fill('VERSION_CONFLICT'));
    expect(
      await h.store.savedQueries.countDocuments({ tenant: h.tenant, name: 'orders_by_user' }),
    ).toBe(1);
    expect(await h.store.candidates.findOne({ _id: candidate!.id })).toMatchObject({
      status: 'confirmed',
      createdId: `c-${candidate!.id}`,
    });
  });

  it('races - a confirm racing rejects: exactly one decision stands', async () => {
    const candidate = await h.memory.candidates.propose({
      owner: { tenant: h.tenant, agent: 'bot', user: '' },
      kind: 'preference',
      signal: uniqueName('preference'),
      proposal: {
        key: 'frequent_resource:es_refunds',
        kind: 'frequent_resource',
        value: 'es_refunds',
        text: 'Usually queries es_refunds.',
      },
      summary: 'Prefers short answers.',
      confidence: 1,
      evidenceCallIds: ['c1'],
      proposedBy: { agent: 'bot', user: '' },
    });
    const reviewer = as('console', 'alice');
    const { won, codes } = await race([
      () => h.memory.candidates.confirm(reviewer, candidate!.id, { name: '', description: '' }),
      ...times(WRITERS - 1, () => h.memory.candidates.reject(reviewer, candidate!.id, 'no')),
    ]);
    expect(won).toHaveLength(1);
    expect(codes).toEqual(Array(WRITERS - 1).fill('VERSION_CONFLICT'));
    const stored = await h.store.candidates.findOne({ _id: candidate!.id });
    expect(stored?.['status']).toBe(won[0]!.status);
    const preference = await h.store.preferences.findOne({
      tenant: h.tenant,
      agent: 'bot',
      user: '',
      key: 'frequent_resource:es_refunds',
    });
    // The fact exists exactly when the confirmation was the decision that stood.
    expect(preference !== null).toBe(won[0]!.status === 'confirmed');
  });
});

describe('races - learning', () => {
  it('races - the same events delivered many times at once are counted once', async () => {
    const owner = { tenant: h.tenant, agent: 'learner', user: '' };
    const at = Date.now();
    const calls: CompletedCall[] = ['o-1', 'o-2', 'o-3'].map((id, i) => ({
      eventId: `e-${id}-${at}`,
      callId: `call-${id}-${at}`,
      sessionId: 's1',
      owner,
      environment: 'prod',
      tool: 'es_orders_search',
      resource: 'es_orders',
      arguments: { filters: [{ field: 'id', op: 'eq', value: id }] } as JsonObject,
      ok: true,
      at: at + i,
      viaSavedQuery: false,
    }));
    // Every event five times at once; a delivery that lost every attempt is redelivered.
    const deliveries = calls.flatMap((call) => times(5, () => h.memory.learner.learn(call)));
    const { codes } = await race(deliveries);
    expect(new Set(codes)).toEqual(new Set(codes.length > 0 ? ['VERSION_CONFLICT'] : []));
    for (const call of calls) await h.memory.learner.learn(call);

    const signal = await h.store.signals.findOne({ ...owner, key: 'resource:es_orders' });
    expect([...(signal?.['seen'] as string[])].sort()).toEqual(calls.map((c) => c.eventId).sort());
    expect(signal?.['score']).toBeCloseTo(3, 6);
    const shape = await h.store.signals.findOne({
      ...owner,
      key: { $regex: '^shape:es_orders_search:' },
    });
    expect((shape?.['uses'] as unknown[]).length).toBe(3);
    expect(
      await h.store.preferences.countDocuments({ ...owner, key: 'frequent_resource:es_orders' }),
    ).toBe(1);
    const candidates = await h.store.candidates.find({ ...owner, kind: 'saved_query' }).toArray();
    expect(candidates).toHaveLength(1);
    expect([...(candidates[0]?.['evidenceCallIds'] as string[])].sort()).toEqual(
      calls.map((c) => c.callId).sort(),
    );
  });
});
