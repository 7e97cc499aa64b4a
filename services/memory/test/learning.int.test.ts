import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { RpcStatus, isRpcError } from '@tollgate/contracts';
import { CallStatus } from '@tollgate/contracts/call/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { CandidateKind, PreferenceSource, PreferenceStatus } from '@tollgate/contracts/memory/v1';
import { EventPublisher, EventTypes, encodeEnvelope, envelope } from '@tollgate/kit';
import type { JsonObject } from '../src/types.js';
import { eventually, startMemory } from './harness.js';
import type { MemoryHarness } from './harness.js';

const DAY = 24 * 3600_000;

interface CallSpec {
  user?: string;
  agent?: string;
  tool?: string;
  resource?: string;
  args: JsonObject;
  status?: CallStatus;
  at?: number;
  callId?: string;
  savedQuery?: string;
}

function callEvent(h: MemoryHarness, spec: CallSpec): EventEnvelope {
  const callId = spec.callId ?? crypto.randomUUID();
  const event = envelope(EventTypes.callCompleted, h.tenant, {
    case: 'callCompleted',
    value: {
      callId,
      sessionId: 's1',
      principal: {
        tenant: h.tenant,
        agent: spec.agent ?? 'bot',
        user: spec.user ?? '',
        environment: 'prod',
      },
      tool: spec.tool ?? 'es_orders_search',
      resource: spec.resource ?? 'es_orders',
      arguments: spec.args,
      status: spec.status ?? CallStatus.OK,
      ...(spec.savedQuery
        ? {
            savedQuery: {
              id: `sq-${spec.savedQuery}`,
              name: spec.savedQuery,
              revision: 1,
              contentHash: 'h',
              tool: `sq_${spec.savedQuery}`,
            },
          }
        : {}),
    },
  });
  if (spec.at !== undefined) event.occurredAt = timestampFromMs(spec.at);
  return event;
}

const byId = (id: string): JsonObject => ({
  filters: [{ field: 'id', op: 'eq', value: id }],
  fields: ['id', 'amount', 'created_at'],
  limit: 5,
});

/** Waits until the learner has counted `event` into its resource signal. */
async function learned(h: MemoryHarness, event: EventEnvelope): Promise<void> {
  const p = event.payload.case === 'callCompleted' ? event.payload.value : undefined;
  await eventually(async () => {
    const doc = await h.store.signals.findOne({
      tenant: h.tenant,
      agent: p?.principal?.agent,
      user: p?.principal?.user,
      key: `resource:${p?.resource}`,
    });
    return (doc?.['seen'] as string[] | undefined)?.includes(event.eventId) ? true : undefined;
  });
}

async function publishAndLearn(h: MemoryHarness, specs: CallSpec[]): Promise<EventEnvelope[]> {
  const events = specs.map((spec) => callEvent(h, spec));
  for (const event of events) await h.publishCall(event);
  // The consumer handles events in order, so once the OK ones are counted, the rest were seen.
  for (const [i, event] of events.entries()) {
    if ((specs[i]?.status ?? CallStatus.OK) === CallStatus.OK) await learned(h, event);
  }
  return events;
}

async function rpcError(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    if (isRpcError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('learning - from call.completed', () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await startMemory();
    await h.startLearning();
  });
  afterAll(async () => {
    await h.close();
  });

  it('learning - one-off and two-off queries never become capabilities; the third same-shape use proposes one', async () => {
    await publishAndLearn(h, [
      { user: 'alice', args: byId('o-1') },
      { user: 'alice', args: byId('o-2') },
      { user: 'bob', args: byId('o-3') },
      { user: 'alice', args: byId('o-4'), status: CallStatus.ERROR },
      { user: 'alice', args: { filters: [{ field: 'status', op: 'eq', value: 'paid' }] } },
    ]);
    const consoleAlice = await h.client({ agent: 'console', user: 'alice' });
    expect((await consoleAlice.listCandidates({ agent: 'bot' })).candidates).toEqual([]);

    const [third] = await publishAndLearn(h, [{ user: 'alice', args: byId('o-5') }]);
    const { candidates } = await eventually(async () => {
      const list = await consoleAlice.listCandidates({
        agent: 'bot',
        kind: CandidateKind.SAVED_QUERY,
      });
      return list.candidates.length > 0 ? list : undefined;
    });
    expect(candidates).toHaveLength(1);
    const candidate = candidates[0]!;
    expect(candidate).toMatchObject({
      user: 'alice',
      agent: 'bot',
      kind: CandidateKind.SAVED_QUERY,
    });
    expect(candidate.proposal).toMatchObject({
      name: 'es_orders_search_by_id',
      tool: 'es_orders_search',
      arguments: {
        filters: [{ field: 'id', op: 'eq', value: null }],
        fields: ['amount', 'created_at', 'id'],
        // A value the agent repeated is still a parameter: only a person fixes one.
        limit: null,
      },
      parameters: [
        { name: 'id', path: '/filters/0/value', type: 'string' },
        { name: 'limit', path: '/limit', type: 'integer' },
      ],
    });
    expect(JSON.stringify(candidate.proposal)).not.toMatch(/o-\d/);
    expect(candidate.evidenceCallIds).toHaveLength(3);
    const thirdCall = third!.payload.case === 'callCompleted' ? third!.payload.value.callId : '';
    expect(candidate.evidenceCallIds).toContain(thirdCall);
    const consoleBob = await h.client({ agent: 'console', user: 'bob' });
    expect((await consoleBob.listCandidates({ agent: 'bot' })).candidates).toEqual([]);

    // Derived preferences of auto-write kinds are in effect for alice, not for bob.
    const botForAlice = await h.client({ agent: 'bot', user: 'alice' });
    const prefs = await eventually(async () => {
      const { preferences } = await botForAlice.listPreferences({});
      return preferences.length === 2 ? preferences : undefined;
    });
    expect(prefs.map((p) => [p.key, p.status, p.source]).sort()).toEqual([
      ['frequent_resource:es_orders', PreferenceStatus.ACTIVE, PreferenceSource.DERIVED],
      ['preferred_fields:es_orders_search', PreferenceStatus.ACTIVE, PreferenceSource.DERIVED],
    ]);
    const botForBob = await h.client({ agent: 'bot', user: 'bob' });
    expect((await botForBob.listPreferences({})).preferences).toEqual([]);

    // Only a person through another agent confirms; then it is a tool-like saved query.
    expect(await rpcError(botForAlice.confirmCandidate({ id: candidate.id }))).toMatchObject({
      code: RpcStatus.PERMISSION_DENIED,
    });
    const { candidate: confirmed } = await consoleAlice.confirmCandidate({
      id: candidate.id,
      name: 'order_details_by_id',
      description: 'Order details by id.',
    });
    expect(confirmed?.createdId).not.toBe('');
    const { savedQueries } = await botForAlice.listSavedQueries({ tool: 'es_orders_search' });
    expect(savedQueries).toEqual([
      expect.objectContaining({
        id: confirmed!.createdId,
        name: 'order_details_by_id',
        description: 'Order details by id.',
        user: 'alice',
        decidedBy: 'agent:console,user:alice',
      }),
    ]);
    expect((await botForBob.listSavedQueries({})).savedQueries).toEqual([]);
    const recall = await botForAlice.recall({ task: 'show me order details by id' });
    expect(recall.hits[0]?.item).toMatchObject({
      case: 'savedQuery',
      value: { name: 'order_details_by_id' },
    });
    expect(recall.hits.map((hit) => hit.item.case)).toContain('preference');

    // A confirmed signal is not proposed again.
    await publishAndLearn(h, [{ user: 'alice', args: byId('o-6') }]);
    expect(
      (await consoleAlice.listCandidates({ agent: 'bot', kind: CandidateKind.SAVED_QUERY }))
        .candidates,
    ).toEqual([]);
  });

  it('learning - calls through a saved query teach the resource only, never a new candidate or fields', async () => {
    const user = 'via-saved-query';
    await publishAndLearn(
      h,
      ['o-1', 'o-2', 'o-3', 'o-4'].map((id) => ({ user, args: byId(id), savedQuery: 'by_id' })),
    );
    const erin = await h.client({ agent: 'console', user });
    expect((await erin.listCandidates({ agent: 'bot' })).candidates).toEqual([]);
    const facts = (await erin.listPreferences({ agent: 'bot' })).preferences.map((p) => p.key);
    expect(facts).toEqual(['frequent_resource:es_orders']);
  });

  it('learning - a redelivered event and a duplicated call count once', async () => {
    const event = callEvent(h, { user: 'carol', args: byId('x-1') });
    await h.publishCall(event);
    await learned(h, event);
    // The same envelope again under another message id, as after the dedupe window.
    await new EventPublisher(h.nc).publish(
      EventTypes.callCompleted,
      crypto.randomUUID(),
      encodeEnvelope(event),
      h.tenant,
    );
    const marker = callEvent(h, {
      user: 'carol',
      resource: 'es_other',
      tool: 'es_other_search',
      args: {},
    });
    await h.publishCall(marker);
    await learned(h, marker);
    const payload = event.payload.case === 'callCompleted' ? event.payload.value : undefined;
    await h.memory.learner.learn({
      eventId: event.eventId,
      callId: payload!.callId,
      sessionId: 's1',
      owner: { tenant: h.tenant, agent: 'bot', user: 'carol' },
      environment: 'prod',
      tool: 'es_orders_search',
      resource: 'es_orders',
      arguments: byId('x-1'),
      ok: true,
      at: Date.now(),
      viaSavedQuery: false,
    });
    const signal = await h.store.signals.findOne({
      tenant: h.tenant,
      user: 'carol',
      key: 'resource:es_orders',
    });
    expect(signal?.['score']).toBe(1);
    const shape = await h.store.signals.findOne({
      tenant: h.tenant,
      user: 'carol',
      key: { $regex: '^shape:es_orders_search' },
    });
    expect(shape?.['uses']).toHaveLength(1);
  });

  it('learning - uses spread far beyond the half-life and the window teach nothing', async () => {
    const now = Date.now();
    await publishAndLearn(h, [
      { user: 'dave', args: byId('d-1'), at: now - 60 * DAY },
      { user: 'dave', args: byId('d-2'), at: now - 30 * DAY },
      { user: 'dave', args: byId('d-3'), at: now },
    ]);
    const botForDave = await h.client({ agent: 'bot', user: 'dave' });
    expect((await botForDave.listPreferences({})).preferences).toEqual([]);
    const consoleDave = await h.client({ agent: 'console', user: 'dave' });
    expect((await consoleDave.listCandidates({ agent: 'bot' })).candidates).toEqual([]);
  });

  it('learning - a forgotten derived preference stays forgotten', async () => {
    await publishAndLearn(
      h,
      [1, 2, 3].map((i) => ({ user: 'erin', args: byId(`e-${i}`) })),
    );
    const botForErin = await h.client({ agent: 'bot', user: 'erin' });
    // Counting a use and writing what it taught are two steps: wait for the second.
    const frequent = await eventually(async () =>
      (await botForErin.listPreferences({})).preferences.find(
        (p) => p.key === 'frequent_resource:es_orders',
      ),
    );
    await botForErin.forgetPreference({ id: frequent!.id });
    await publishAndLearn(
      h,
      [4, 5].map((i) => ({ user: 'erin', args: byId(`e-${i}`) })),
    );
    const keys = (await botForErin.listPreferences({})).preferences.map((p) => p.key);
    expect(keys).toEqual(['preferred_fields:es_orders_search']);
  });

  it('learning - undecodable and unusable events are dead-lettered and learning carries on', async () => {
    const publisher = new EventPublisher(h.nc);
    await publisher.publish(
      EventTypes.callCompleted,
      crypto.randomUUID(),
      new TextEncoder().encode('not protobuf at all'),
      h.tenant,
    );
    const noPrincipal = envelope(EventTypes.callCompleted, h.tenant, {
      case: 'callCompleted',
      value: { callId: 'c-x', tool: 'es_orders_search', resource: 'es_orders' },
    });
    await h.publishCall(noPrincipal);
    const good = callEvent(h, { user: 'frank', args: byId('f-1') });
    await h.publishCall(good);
    await learned(h, good);
    expect(await h.store.signals.countDocuments({ tenant: h.tenant, user: '' })).toBe(0);
  });
});

describe('learning - the gate policy', () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await startMemory({ autoKinds: [] });
    await h.startLearning();
  });
  afterAll(async () => {
    await h.close();
  });

  it('learning - derived kinds the policy does not auto-write are staged as candidates for a person', async () => {
    await publishAndLearn(
      h,
      [1, 2, 3].map((i) => ({ user: 'alice', args: byId(`o-${i}`) })),
    );
    const botForAlice = await h.client({ agent: 'bot', user: 'alice' });
    expect((await botForAlice.listPreferences({})).preferences).toEqual([]);
    const consoleAlice = await h.client({ agent: 'console', user: 'alice' });
    const candidates = await eventually(async () => {
      const list = await consoleAlice.listCandidates({
        agent: 'bot',
        kind: CandidateKind.PREFERENCE,
      });
      return list.candidates.length === 2 ? list.candidates : undefined;
    });
    expect(candidates.map((c) => c.summary).sort()).toEqual([
      'Prefers fields amount, created_at, id for es_orders_search.',
      'Usually queries es_orders.',
    ]);
    const frequent = candidates.find((c) => c.summary === 'Usually queries es_orders.')!;
    const other = candidates.find((c) => c !== frequent)!;
    await consoleAlice.confirmCandidate({ id: frequent.id });
    await consoleAlice.rejectCandidate({ id: other.id, reason: 'not really' });
    const prefs = (await botForAlice.listPreferences({})).preferences;
    expect(prefs.map((p) => [p.key, p.status, p.confirmedBy])).toEqual([
      ['frequent_resource:es_orders', PreferenceStatus.ACTIVE, 'agent:console,user:alice'],
    ]);
    await publishAndLearn(h, [{ user: 'alice', args: byId('o-4') }]);
    expect(
      (await consoleAlice.listCandidates({ agent: 'bot', kind: CandidateKind.PREFERENCE }))
        .candidates,
    ).toEqual([]);
  });
});
