import { fromJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  ErrorCategory as ProtoCategory,
  ErrorCode as ProtoCode,
} from '@tollgate/contracts/common/v1';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DeniedError,
  FixArgumentsError,
  NeedsHumanError,
  RetryableError,
  TollgateClient,
  isRetryable,
} from '../src/index.js';
import type { CompletionEvent } from '../src/index.js';
import { orders, searchSchema, signedToken, testIssuer, uniqueName } from './support/fixtures.js';
import { startAuthCallout } from '../../../test/support/bus.js';
import { startNatsServer } from '../../../test/support/nats-server.js';
import type { NatsServer } from '../../../test/support/nats-server.js';
import { CallStatus, StandInServices } from './support/standin-services.js';
import type { CallBehaviour } from './support/standin-services.js';

const tenant = uniqueName('t').replaceAll('_', '-');
const principal = { tenant, agent: 'support_bot', environment: 'prod' };
let token: string;
const resource = uniqueName('orders');
const searchTool = `${resource}_search`;

let nats: NatsServer;
let callout: Awaited<ReturnType<typeof startAuthCallout>>;
let nc: NatsConnection;
let standIn: StandInServices;
let client: TollgateClient;
let behaviour: CallBehaviour = () => ({ status: CallStatus.OK });

beforeAll(async () => {
  nats = await startNatsServer();
  token = await signedToken(principal);
  callout = await startAuthCallout(nats.url, nats.credentialsDir, (await testIssuer()).file);
  nc = await nats.connect('sdk-client-test');
  standIn = new StandInServices({
    nc,
    token,
    principal,
    tools: [{ name: searchTool, resource, operation: 'search', inputSchema: searchSchema() }],
    onCall: (request) => behaviour(request),
  });
  await nc.flush();
  client = await TollgateClient.connect({
    natsUrl: nats.url,
    token,
    timeoutMs: 10_000,
    pollIntervalMs: 200,
  });
});

afterEach(() => {
  behaviour = () => ({ status: CallStatus.OK });
});

afterAll(async () => {
  await client?.close();
  standIn?.close();
  await nc?.drain();
  await callout?.stop();
  await nats?.dispose();
});

describe('client - listing tools', () => {
  it('client - listTools sends the task, format and topK with the token and a traceparent', async () => {
    const tools = await client.listTools({
      task: 'find order ORD-1',
      format: 'openai',
      topK: 3,
      sessionId: 's1',
    });
    expect(tools.map((t) => t.name)).toEqual([searchTool]);
    expect(tools[0]).toMatchObject({
      resource,
      operation: 'search',
      format: 'openai',
      callSubject: `tollgate.v1.call.elasticsearch.${resource}`,
      rendering: { type: 'function', function: { name: searchTool, strict: true } },
    });
    const request = standIn.listRequests.at(-1)!;
    expect({ task: request.task, topK: request.topK, sessionId: request.sessionId }).toEqual({
      task: 'find order ORD-1',
      topK: 3,
      sessionId: 's1',
    });
    const headers = standIn.headers.at(-1)!;
    expect(headers.get('authorization')).toBe(`Bearer ${token}`);
    expect(headers.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  });

  it('client - a refused token is a DeniedError from the tollgate-error header', async () => {
    const stranger = await TollgateClient.connect({
      natsUrl: nats.url,
      token: await signedToken({ tenant, agent: 'intruder' }),
    });
    try {
      const err = await stranger.listTools().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DeniedError);
      expect(err).toMatchObject({ code: 'UNAUTHENTICATED', category: 'denied' });
    } finally {
      await stranger.close();
    }
  });

  it('client - a token that is not a principal token is refused before anything is sent', async () => {
    await expect(
      TollgateClient.connect({ natsUrl: nats.url, token: 'not-a-jwt' }),
    ).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
  });
});

describe('client - calling tools', () => {
  it('client - an ok call returns data and meta; the request carries id, arguments and session', async () => {
    behaviour = () => ({
      status: CallStatus.OK,
      data: fromJson(ValueSchema, orders(2)),
      meta: {
        resource,
        tool: searchTool,
        returned: 2,
        total: 7,
        truncated: false,
        nextCursor: 'c2',
      },
    });
    const args = {
      filters: [{ field: 'id', op: 'eq', value: 'ORD-1000' }],
      limit: 5,
      cursor: null,
    };
    const outcome = await client.call(searchTool, args, {
      sessionId: 'sess-1',
      idempotencyKey: 'k1',
      timeoutMs: 4_000,
    });
    expect(outcome.status).toBe('ok');
    if (outcome.status !== 'ok') return;
    expect(outcome.data).toEqual(orders(2));
    expect(outcome.meta).toMatchObject({
      returned: 2,
      total: 7,
      nextCursor: 'c2',
      truncated: false,
    });
    const sent = standIn.calls.at(-1)!;
    expect(sent.callId).toMatch(/^[0-9a-f-]{36}$/);
    expect(outcome.callId).toBe(sent.callId);
    expect(sent).toMatchObject({
      tool: searchTool,
      sessionId: 'sess-1',
      idempotencyKey: 'k1',
      timeoutMs: 4_000,
      toolVersion: `v-${searchTool}`,
    });
    expect(sent.arguments).toEqual(args);
  });

  it('client - an argument error comes back as an error outcome with FixArgumentsError and paths', async () => {
    behaviour = () => ({
      status: CallStatus.ERROR,
      error: {
        code: ProtoCode.ARGUMENTS_INVALID,
        category: ProtoCategory.FIX_ARGUMENTS,
        message: 'arguments do not match the tool schema',
        details: [
          {
            path: 'filters[0].op',
            message: 'expected one of "eq", "in", "exists"',
            expected: 'one of "eq", "in", "exists"',
            found: '"gt"',
          },
        ],
      },
    });
    const outcome = await client.call(searchTool, {
      filters: [{ field: 'id', op: 'gt', value: 'x' }],
      limit: null,
      cursor: null,
    });
    expect(outcome.status).toBe('error');
    if (outcome.status !== 'error') return;
    expect(outcome.error).toBeInstanceOf(FixArgumentsError);
    expect(outcome.error.code).toBe('ARGUMENTS_INVALID');
    expect(outcome.error.details).toEqual([
      {
        path: 'filters[0].op',
        message: 'expected one of "eq", "in", "exists"',
        expected: 'one of "eq", "in", "exists"',
        found: '"gt"',
      },
    ]);
  });

  it('client - a tool not yet listed is looked up with get_tool; an unknown one is UNKNOWN_TOOL', async () => {
    const fresh = TollgateClient.over(nc, { token });
    try {
      const outcome = await fresh.call(searchTool, { filters: null, limit: null, cursor: null });
      expect(outcome.status).toBe('ok');
      const err = await fresh.call('nope_search', {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FixArgumentsError);
      expect(err).toMatchObject({ code: 'UNKNOWN_TOOL' });
    } finally {
      await fresh.close();
    }
  });

  it('client - arguments that are not JSON are refused locally with the offending path', async () => {
    const before = standIn.calls.length;
    const err = await client
      .call(searchTool, { limit: Number.NaN } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixArgumentsError);
    expect(err).toMatchObject({ details: [{ path: '/limit', message: 'not a finite number' }] });
    expect(standIn.calls.length).toBe(before);
  });
});

describe('client - parked and long-running calls', () => {
  it('client - pending_approval resolves through the completion event, with data fetched from call_result', async () => {
    behaviour = () => ({ status: CallStatus.PENDING_APPROVAL, approvalId: 'appr-1' });
    const outcome = await client.call(searchTool, { filters: null, limit: null, cursor: null });
    expect(outcome.status).toBe('pending_approval');
    if (outcome.status !== 'pending_approval') return;
    expect(outcome.approvalId).toBe('appr-1');
    const waiting = outcome.wait({ timeoutMs: 600_000, pollIntervalMs: 600_000 });
    standIn.complete(outcome.callId, {
      status: CallStatus.OK,
      data: fromJson(ValueSchema, orders(1)),
      meta: { returned: 1 },
    });
    const final = await waiting;
    expect(final).toMatchObject({ status: 'ok', callId: outcome.callId, data: orders(1) });
    expect(standIn.polls).toContain(outcome.callId);
  });

  it('client - a completion published before the reply arrives is not missed', async () => {
    behaviour = (request) => {
      // The executor finishes and announces the call before it answers the request.
      standIn.complete(request.callId, {
        status: CallStatus.OK,
        data: fromJson(ValueSchema, { raced: true }),
      });
      return { status: CallStatus.ACCEPTED, taskId: 'task-race' };
    };
    const outcome = await client.call(searchTool, { filters: null, limit: null, cursor: null });
    if (outcome.status !== 'accepted') throw new Error(`expected accepted, got ${outcome.status}`);
    const pollsBefore = standIn.polls.length;
    const final = await outcome.wait({ timeoutMs: 600_000, pollIntervalMs: 600_000 });
    expect(final).toMatchObject({ status: 'ok', data: { raced: true } });
    // Woken by the event (the poll timer would outlast the test), then one poll fetched the data.
    expect(standIn.polls.length - pollsBefore).toBe(1);
  });

  it('client - a rejected approval resolves as a NeedsHumanError outcome from the event alone', async () => {
    behaviour = () => ({ status: CallStatus.PENDING_APPROVAL, approvalId: 'appr-2' });
    const outcome = await client.call(searchTool, { filters: null, limit: null, cursor: null });
    if (outcome.status !== 'pending_approval')
      throw new Error(`expected pending_approval, got ${outcome.status}`);
    const pollsBefore = standIn.polls.length;
    standIn.publishCompletion(outcome.callId, CallStatus.ERROR, {
      error: {
        code: ProtoCode.APPROVAL_REJECTED,
        category: ProtoCategory.NEEDS_HUMAN,
        message: 'rejected by alice',
      },
    });
    const final = await outcome.wait({ timeoutMs: 600_000, pollIntervalMs: 600_000 });
    expect(final.status).toBe('error');
    if (final.status !== 'error') return;
    expect(final.error).toBeInstanceOf(NeedsHumanError);
    expect(final.error).toMatchObject({ code: 'APPROVAL_REJECTED', message: 'rejected by alice' });
    expect(standIn.polls.length).toBe(pollsBefore);
  });

  it('client - an accepted call whose event was missed is found by polling call_result', async () => {
    behaviour = () => ({ status: CallStatus.ACCEPTED, taskId: 'task-9' });
    const outcome = await client.call(searchTool, { filters: null, limit: null, cursor: null });
    if (outcome.status !== 'accepted') throw new Error(`expected accepted, got ${outcome.status}`);
    expect(outcome.taskId).toBe('task-9');
    // The result is stored without any event: only polling can find it.
    standIn.storeResult(outcome.callId, {
      status: CallStatus.OK,
      data: fromJson(ValueSchema, { done: true }),
    });
    const final = await outcome.wait({ timeoutMs: 30_000, pollIntervalMs: 100 });
    expect(final).toMatchObject({ status: 'ok', data: { done: true } });
  });

  it('client - waiting past the budget on a parked call is a NeedsHumanError', async () => {
    behaviour = () => ({ status: CallStatus.PENDING_APPROVAL, approvalId: 'appr-3' });
    const outcome = await client.call(searchTool, { filters: null, limit: null, cursor: null });
    if (outcome.status !== 'pending_approval')
      throw new Error(`expected pending_approval, got ${outcome.status}`);
    const err = await outcome
      .wait({ timeoutMs: 300, pollIntervalMs: 100 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NeedsHumanError);
    expect(err).toMatchObject({ code: 'APPROVAL_REQUIRED' });
  });
});

describe('client - transport failures', () => {
  it('client - nobody listening on the call subject is a retryable SERVICE_UNAVAILABLE', async () => {
    const lonely = {
      ...(await client.listTools())[0]!,
      callSubject: `tollgate.v1.call.elasticsearch.${uniqueName('nobody')}`,
    };
    const err = await client.call(lonely, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(isRetryable(err)).toBe(true);
  });

  it('client - a NATS server that cannot be reached is retryable', async () => {
    const err = await TollgateClient.connect({
      natsUrl: 'nats://127.0.0.1:1',
      token,
      connectTimeoutMs: 2_000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('client - no reply within the budget is a retryable SERVICE_UNAVAILABLE, answered within the budget', async () => {
    behaviour = () => 'no-reply';
    const started = Date.now();
    const err = await client.call(searchTool, {}, { timeoutMs: 600 }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(RetryableError);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // The budget is the whole wait: no grace period on top of it.
    expect(elapsed).toBeGreaterThanOrEqual(600);
    expect(elapsed).toBeLessThan(1_500);
  });
});

describe('client - completion events', () => {
  it('client - onCompletion delivers this principal’s events and not another agent’s', async () => {
    const seen: CompletionEvent[] = [];
    const subscription = client.onCompletion((event) => {
      seen.push(event);
    });
    try {
      const other = { ...principal, agent: 'someone_else' };
      const mine = uniqueName('call');
      await nc.flush();
      standIn.publishCompletion(uniqueName('theirs'), CallStatus.OK, { principal: other });
      standIn.publishCompletion(mine, CallStatus.ERROR, {
        error: { code: ProtoCode.POLICY_DENIED, category: ProtoCategory.DENIED, message: 'no' },
      });
      await eventually(() => seen.some((e) => e.callId === mine));
      expect(seen.every((e) => e.principal?.agent === principal.agent)).toBe(true);
      const event = seen.find((e) => e.callId === mine)!;
      expect(event.status).toBe('error');
      expect(event.error).toBeInstanceOf(DeniedError);
    } finally {
      subscription.close();
    }
  });
});

async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
