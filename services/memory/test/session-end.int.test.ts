import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcStatus, isRpcError } from '@tollgate/contracts';
import { MemoryItemKind, MemoryWrite } from '@tollgate/contracts/events/v1';
import {
  CandidateKind,
  CandidateStatus,
  SessionOutcome,
  SessionStatus,
} from '@tollgate/contracts/memory/v1';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { createLogger } from '@tollgate/kit';
import { skillCandidateOf } from '../src/learning/session-skills.js';
import type { JsonObject } from '../src/types.js';
import { agentSnapshot, customerById, orderById, snapshotCalls } from './agent-snapshot.js';
import type { Conversation, Turn } from './agent-snapshot.js';
import { completedCall, eventually, startMemory, uniqueName } from './harness.js';
import type { MemoryHarness } from './harness.js';

let h: MemoryHarness;
beforeAll(async () => {
  h = await startMemory();
});
afterAll(async () => {
  await h.close();
});

async function rpcError(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    if (isRpcError(err)) return { code: err.code, message: err.message, details: err.details };
    throw err;
  }
  throw new Error('expected the call to fail');
}

/**
 * A session of `agent`/`user` holding `state`, written as the agent loop would; for a
 * conversation, its successful calls are made first (the audit trail records them) and the
 * snapshot names their call ids.
 */
async function session(
  agent: string,
  user: string,
  state: JsonObject | Conversation,
): Promise<string> {
  const sessionId = uniqueName('conv');
  const client = await h.client({ agent, user });
  if (!('turns' in state)) {
    await client.putSession({ sessionId, state, expectedVersion: 0 });
    return sessionId;
  }
  const conversation = state as Conversation;
  const callIds = await made(agent, user, sessionId, conversation.turns);
  await client.putSession({
    sessionId,
    state: agentSnapshot(conversation.request, conversation.turns, {
      calls: snapshotCalls(conversation.turns, callIds),
    }),
    expectedVersion: 0,
  });
  return sessionId;
}

/** Makes the calls of `turns` (their call.completed events published as the executor would). */
async function made(agent: string, user: string, sessionId: string, turns: Turn[]) {
  const callIds: string[] = [];
  for (const turn of turns) {
    const event = completedCall(h.tenant, {
      agent,
      user,
      sessionId,
      tool: turn.tool,
      resource: turn.tool.replace(/_[a-z]+$/, ''),
      args: typeof turn.args === 'string' ? {} : turn.args,
      ...(turn.status === 'error' ? { status: CallStatus.ERROR } : {}),
    });
    await h.publishCall(event);
    callIds.push(event.payload.case === 'callCompleted' ? event.payload.value.callId : '');
  }
  return callIds;
}

const twoSteps = (order: string): Conversation => ({
  request: `Find order ${order} and its customer`,
  turns: [orderById(order), customerById(`C-${order.slice(4)}`)],
});

describe('session end - skills from successful sessions', () => {
  it('session end - a successful two-step session proposes a skill; a person confirms it through another agent', async () => {
    const bot = await h.client({ agent: 'bot', user: 'alice' });
    const sessionId = await session('bot', 'alice', twoSteps('ORD-1000'));
    const ended = await bot.endSession({
      sessionId,
      outcome: SessionOutcome.SUCCEEDED,
      expectedVersion: 1,
    });
    expect(ended.session).toMatchObject({
      sessionId,
      version: 2,
      status: SessionStatus.ENDED,
      outcome: SessionOutcome.SUCCEEDED,
    });
    expect(ended.session?.endedAt).toBeDefined();
    expect(ended.skillCandidateId).not.toBe('');
    expect((await bot.getSession({ sessionId })).session).toMatchObject({
      status: SessionStatus.ENDED,
      outcome: SessionOutcome.SUCCEEDED,
    });

    const { candidates } = await bot.listCandidates({ kind: CandidateKind.SKILL });
    const candidate = candidates.find((c) => c.id === ended.skillCandidateId);
    expect(candidate).toMatchObject({
      kind: CandidateKind.SKILL,
      status: CandidateStatus.PENDING,
      agent: 'bot',
      user: 'alice',
      confidence: 0.5,
      proposal: {
        name: 'es_orders_search_then_es_customers_get',
        sessionId,
        tools: ['es_customers_get', 'es_orders_search'],
        inputs: [expect.objectContaining({ name: 'id', type: 'string' })],
      },
    });
    const steps = candidate?.proposal?.['steps'] as JsonObject[];
    expect(steps.map((s) => s['bindings'])).toEqual([
      { '/filters/0/value': 'inputs.id' },
      { '/id': 'steps.step_1/0/customer_id' },
    ]);
    await eventually(() =>
      h.written.find(
        (w) => w.kind === MemoryItemKind.SESSION && w.id === sessionId && w.version === 2,
      ),
    );

    // The agent that made the calls does not confirm what they proposed.
    expect(await rpcError(bot.confirmCandidate({ id: ended.skillCandidateId }))).toMatchObject({
      code: RpcStatus.PERMISSION_DENIED,
    });
    // Another person cannot even see it.
    const bob = await h.client({ agent: 'console', user: 'bob' });
    expect(await rpcError(bob.confirmCandidate({ id: ended.skillCandidateId }))).toMatchObject({
      code: RpcStatus.NOT_FOUND,
    });
    const reviewer = await h.client({ agent: 'console', user: 'alice' });
    const pending = await reviewer.listCandidates({ agent: 'bot', kind: CandidateKind.SKILL });
    expect(pending.candidates.map((c) => c.id)).toContain(ended.skillCandidateId);
    const confirmed = await reviewer.confirmCandidate({ id: ended.skillCandidateId });
    expect(confirmed.candidate).toMatchObject({
      status: CandidateStatus.CONFIRMED,
      decidedBy: 'agent:console,user:alice',
    });
    const { skills } = await bot.listSkills({});
    expect(skills.find((s) => s.id === confirmed.candidate?.createdId)).toMatchObject({
      name: 'es_orders_search_then_es_customers_get',
      tools: ['es_customers_get', 'es_orders_search'],
      resources: ['es_customers', 'es_orders'],
      permissions: ['es_customers.get', 'es_orders.search'],
      steps: [{ id: 'step_1' }, { id: 'step_2', arguments: { id: null } }],
    });
    const recalled = await bot.recall({ task: 'order and its customer' });
    expect(recalled.hits.some((hit) => hit.item.case === 'skill')).toBe(true);
  });

  it('session end - the same procedure ending well again proposes nothing new', async () => {
    const bot = await h.client({ agent: 'repeat_bot', user: 'alice' });
    const first = await bot.endSession({
      sessionId: await session('repeat_bot', 'alice', twoSteps('ORD-2000')),
      outcome: SessionOutcome.SUCCEEDED,
    });
    expect(first.skillCandidateId).not.toBe('');
    const second = await bot.endSession({
      sessionId: await session('repeat_bot', 'alice', twoSteps('ORD-3000')),
      outcome: SessionOutcome.SUCCEEDED,
    });
    expect(second.skillCandidateId).toBe('');
    const { candidates } = await bot.listCandidates({ kind: CandidateKind.SKILL });
    expect(candidates.map((c) => c.id)).toEqual([first.skillCandidateId]);
  });

  it('session end - failed, abandoned and one-step sessions propose nothing', async () => {
    const bot = await h.client({ agent: 'quiet_bot', user: 'alice' });
    for (const outcome of [SessionOutcome.FAILED, SessionOutcome.ABANDONED]) {
      const ended = await bot.endSession({
        sessionId: await session('quiet_bot', 'alice', twoSteps('ORD-4000')),
        outcome,
      });
      expect(ended).toMatchObject({ skillCandidateId: '', session: { outcome } });
    }
    const oneStep = await bot.endSession({
      sessionId: await session('quiet_bot', 'alice', {
        request: 'order?',
        turns: [orderById('ORD-1')],
      }),
      outcome: SessionOutcome.SUCCEEDED,
    });
    expect(oneStep.skillCandidateId).toBe('');
    expect((await bot.listCandidates({})).candidates).toEqual([]);
  });

  it('session end - a procedure that fails the skill check is dropped with a warning', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      service: 'memory-test',
      level: 'debug',
      destination: new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    });
    // 31 distinct successful calls: more steps than a skill may have.
    const turns = Array.from({ length: 31 }, (_, i) => orderById(`ORD-${5000 + i}`));
    const turnsWithOthers = turns.map((t, i) => ({ ...t, tool: `es_orders${i}_search` }));
    const sessionId = await session('long_bot', 'alice', {
      request: 'many',
      turns: turnsWithOthers,
    });
    const bot = await h.client({ agent: 'long_bot', user: 'alice' });
    const ended = await bot.endSession({ sessionId, outcome: SessionOutcome.SUCCEEDED });
    expect(ended.skillCandidateId).toBe('');
    const stored = await h.memory.sessions.get(
      { tenant: h.tenant, agent: 'long_bot', user: 'alice', environment: 'prod' },
      sessionId,
    );
    expect(
      await skillCandidateOf(
        {
          store: h.store,
          candidates: h.memory.candidates,
          audit: h.audit,
          auditWaitMs: 1_000,
          logger,
        },
        stored,
      ),
    ).toBe('');
    const warning = lines
      .map((l) => JSON.parse(l) as JsonObject)
      .find((l) => l['level'] === 'warn');
    expect(warning).toMatchObject({
      msg: 'skill proposal dropped: it does not pass the skill check',
      sessionId,
      problems: expect.arrayContaining([{ path: 'steps', message: 'too many steps' }]),
    });
    expect(lines.join('')).not.toContain('ORD-5000');
  });
});

describe('session end - lifecycle', () => {
  it('session end - ending again with the same outcome returns the same answer', async () => {
    const bot = await h.client({ agent: 'bot', user: 'carol' });
    const sessionId = await session('bot', 'carol', twoSteps('ORD-6000'));
    const first = await bot.endSession({
      sessionId,
      outcome: SessionOutcome.SUCCEEDED,
      expectedVersion: 1,
    });
    for (const expectedVersion of [1, 2, undefined]) {
      const again = await bot.endSession({
        sessionId,
        outcome: SessionOutcome.SUCCEEDED,
        ...(expectedVersion !== undefined ? { expectedVersion } : {}),
      });
      expect(again.skillCandidateId).toBe(first.skillCandidateId);
      expect(again.session).toEqual(first.session);
    }
    expect(
      await rpcError(
        bot.endSession({ sessionId, outcome: SessionOutcome.SUCCEEDED, expectedVersion: 5 }),
      ),
    ).toMatchObject({ code: RpcStatus.ABORTED });
    expect(await h.store.candidates.countDocuments({ agent: 'bot', user: 'carol' })).toBe(1);
  });

  it('session end - concurrent ends with one outcome agree on one version and one candidate', async () => {
    const bot = await h.client({ agent: 'race_bot', user: 'alice' });
    const sessionId = await session('race_bot', 'alice', twoSteps('ORD-7000'));
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        bot.endSession({ sessionId, outcome: SessionOutcome.SUCCEEDED }),
      ),
    );
    expect(new Set(results.map((r) => r.session?.version))).toEqual(new Set([2]));
    expect(new Set(results.map((r) => r.skillCandidateId)).size).toBe(1);
    expect(results[0]?.skillCandidateId).not.toBe('');
  });

  it('session end - of an end and a put racing from one version, exactly one wins', async () => {
    const bot = await h.client({ agent: 'race_bot', user: 'bob' });
    for (let round = 0; round < 3; round++) {
      const sessionId = await session('race_bot', 'bob', { step: 1 });
      const [put, end] = await Promise.allSettled([
        bot.putSession({ sessionId, state: { step: 2 }, expectedVersion: 1 }),
        bot.endSession({ sessionId, outcome: SessionOutcome.FAILED, expectedVersion: 1 }),
      ]);
      expect([put.status, end.status].filter((s) => s === 'fulfilled')).toHaveLength(1);
      const { session: stored } = await bot.getSession({ sessionId });
      expect(stored?.version).toBe(2);
      expect(stored?.status).toBe(
        end.status === 'fulfilled' ? SessionStatus.ENDED : SessionStatus.OPEN,
      );
    }
  });

  it('session end - another outcome is refused, naming the stored one', async () => {
    const bot = await h.client({ agent: 'bot', user: 'dave' });
    const sessionId = await session('bot', 'dave', { step: 1 });
    await bot.endSession({ sessionId, outcome: SessionOutcome.FAILED });
    expect(
      await rpcError(bot.endSession({ sessionId, outcome: SessionOutcome.SUCCEEDED })),
    ).toMatchObject({
      code: RpcStatus.ABORTED,
      message: expect.stringContaining('already ended as failed') as string,
      details: [{ path: 'outcome', expected: 'FAILED', found: 'SUCCEEDED' }],
    });
  });

  it('session end - an ended session takes no more snapshots', async () => {
    const bot = await h.client({ agent: 'bot', user: 'erin' });
    const sessionId = await session('bot', 'erin', { step: 1 });
    await bot.endSession({ sessionId, outcome: SessionOutcome.ABANDONED });
    for (const expectedVersion of [2, undefined]) {
      expect(
        await rpcError(
          bot.putSession({
            sessionId,
            state: { step: 2 },
            ...(expectedVersion !== undefined ? { expectedVersion } : {}),
          }),
        ),
      ).toMatchObject({
        code: RpcStatus.ABORTED,
        message: expect.stringContaining('ended (abandoned)') as string,
        details: [{ path: 'session_id', expected: 'an open session', found: 'ended (abandoned)' }],
      });
    }
    expect((await bot.getSession({ sessionId })).session).toMatchObject({
      version: 2,
      state: { step: 1 },
    });
  });

  it('session end - nobody else sees or ends a session', async () => {
    const sessionId = await session('bot', 'frank', twoSteps('ORD-8000'));
    const others = [
      await h.client({ agent: 'bot', user: 'grace' }),
      await h.client({ agent: 'other_bot', user: 'frank' }),
      await h.client({ agent: 'bot' }),
      await h.client({ agent: 'bot', user: 'frank', tenant: `${h.tenant}-x` }),
    ];
    for (const other of others) {
      expect(
        await rpcError(other.endSession({ sessionId, outcome: SessionOutcome.SUCCEEDED })),
      ).toMatchObject({ code: RpcStatus.NOT_FOUND });
    }
    const frank = await h.client({ agent: 'bot', user: 'frank' });
    expect((await frank.getSession({ sessionId })).session?.status).toBe(SessionStatus.OPEN);
    const grace = await h.client({ agent: 'console', user: 'grace' });
    expect((await grace.listCandidates({ agent: 'bot' })).candidates).toEqual([]);
  });

  it('session end - bad input is refused with the field, what was expected and what was found', async () => {
    const bot = await h.client({ agent: 'bot', user: 'alice' });
    expect(await rpcError(bot.endSession({ sessionId: 'bad id!', outcome: 0 }))).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      details: [
        { path: 'session_id', expected: '1-128 of A-Z a-z 0-9 . _ : -', found: '"bad id!"' },
        { path: 'outcome', expected: 'SUCCEEDED, FAILED or ABANDONED', found: 'UNSPECIFIED' },
      ],
    });
    expect(
      await rpcError(bot.endSession({ sessionId: 'x', outcome: 9 as SessionOutcome })),
    ).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      details: [{ path: 'outcome', expected: 'succeeded, failed, abandoned', found: '9' }],
    });
    expect(
      await rpcError(
        bot.endSession({ sessionId: 'x', outcome: SessionOutcome.FAILED, expectedVersion: 0 }),
      ),
    ).toMatchObject({
      code: RpcStatus.INVALID_ARGUMENT,
      details: [{ path: 'expected_version', found: '0' }],
    });
    expect(
      await rpcError(bot.endSession({ sessionId: 'never-stored', outcome: SessionOutcome.FAILED })),
    ).toMatchObject({ code: RpcStatus.NOT_FOUND });
    const sessionId = await session('bot', 'alice', { step: 1 });
    expect(
      await rpcError(
        bot.endSession({ sessionId, outcome: SessionOutcome.FAILED, expectedVersion: 3 }),
      ),
    ).toMatchObject({
      code: RpcStatus.ABORTED,
      details: [{ path: 'expected_version', expected: '1', found: '3' }],
    });
    const written = h.written.filter((w) => w.id === sessionId && w.write === MemoryWrite.UPDATED);
    expect(written).toEqual([]);
  });
});
