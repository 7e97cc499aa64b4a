import { fromJson } from '@bufbuild/protobuf';
import type { JsonObject } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  ErrorCategory as ProtoCategory,
  ErrorCode as ProtoCode,
} from '@tollgate/contracts/common/v1';
import type { CallRequest } from '@tollgate/contracts/call/v1';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  InternalError,
  InMemorySessionStore,
  RetryableError,
  TollgateClient,
  readSnapshot,
  runAgent,
} from '../src/index.js';
import { createDemoScript, llmOrScriptedModel, startScriptedModelServer } from '../src/demo.js';
import type { AgentStep } from '../src/index.js';
import type { ModelScript, ScriptedModelServer } from '../src/demo.js';
import { orders, principalToken, searchSchema, uniqueName } from './support/fixtures.js';
import { startNatsServer } from '../../../test/support/nats-server.js';
import type { NatsServer } from '../../../test/support/nats-server.js';
import { CallStatus, StandInServices } from './support/standin-services.js';
import type { CallBehaviour } from './support/standin-services.js';

const tenant = uniqueName('t').replaceAll('_', '-');
const principal = { tenant, agent: 'support_bot', environment: 'prod' };
const token = principalToken(principal);
const resource = uniqueName('orders');
const searchTool = `${resource}_search`;
const ID_OPS = ['eq', 'in', 'exists'];

let nats: NatsServer;
let nc: NatsConnection;
let standIn: StandInServices;
let client: TollgateClient;
let model: ScriptedModelServer | undefined;
let behaviour: CallBehaviour;

/** The stand-in executor: validates the id operator as the real one words it, returns matching orders. */
const lookUpOrders: CallBehaviour = (request: CallRequest) => {
  const filters = (request.arguments?.filters ?? []) as JsonObject[];
  const bad = filters.findIndex((f) => f.field === 'id' && !ID_OPS.includes(String(f.op)));
  if (bad >= 0) {
    return {
      status: CallStatus.ERROR,
      error: {
        code: ProtoCode.ARGUMENTS_INVALID,
        category: ProtoCategory.FIX_ARGUMENTS,
        message: 'arguments do not match the tool schema',
        details: [
          {
            path: `filters[${bad}].op`,
            message: 'expected one of eq, in, exists for field "id"; found "gt"',
            expected: 'one of eq, in, exists for field "id"',
            found: JSON.stringify(filters[bad]!.op),
          },
        ],
      },
    };
  }
  const id = filters.find((f) => f.field === 'id')?.value;
  const rows = orders(20).filter((row) => id === undefined || row.id === id);
  return {
    status: CallStatus.OK,
    data: fromJson(ValueSchema, rows),
    meta: { returned: rows.length },
  };
};

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await nats.connect('sdk-agent-test');
  standIn = new StandInServices({
    nc,
    token,
    principal,
    tools: [
      {
        name: searchTool,
        resource,
        operation: 'search',
        inputSchema: searchSchema(),
        description: 'Orders.',
      },
    ],
    onCall: (request) => behaviour(request),
  });
  await nc.flush();
  client = TollgateClient.over(nc, { token, timeoutMs: 10_000 });
});

afterEach(async () => {
  behaviour = lookUpOrders;
  await model?.close();
  model = undefined;
});

afterAll(async () => {
  await client?.close();
  standIn?.close();
  await nc?.drain();
  await nats?.dispose();
});

async function startModel(script: ModelScript): Promise<ScriptedModelServer> {
  model = await startScriptedModelServer(script);
  return model;
}

function llmOf(server: ScriptedModelServer) {
  return { baseURL: server.baseURL, model: server.model, apiKey: 'test-key', maxRetries: 0 };
}

describe('agent - answering with tools', () => {
  it('agent - looks an order up through Tollgate and answers; the snapshot is saved after every step', async () => {
    behaviour = lookUpOrders;
    const server = await startModel(createDemoScript());
    const memory = new InMemorySessionStore();
    const sessionId = uniqueName('session');
    const seen: AgentStep[] = [];
    const run = await runAgent({
      client,
      llm: llmOf(server),
      task: 'What is the status of order ORD-1003?',
      sessionId,
      memory,
      endSession: true,
      onStep: (step) => {
        seen.push(step);
      },
    });
    expect(run.status).toBe('answered');
    expect(run.answer).toContain('ORD-1003');
    expect(run.answer).toContain('shipped');
    expect(seen.map((s) => s.sessionVersion)).toEqual([1, 2]);
    expect(seen[0]!.toolCalls).toMatchObject([{ tool: searchTool, status: 'ok' }]);

    // The model was offered the synthesizer's OpenAI rendering, strict mode.
    const first = server.requests[0]!;
    expect(first.tools.map((t) => t.name)).toEqual([searchTool]);
    expect(first.body.tool_choice).toBe('auto');
    expect((first.body.tools as JsonObject[])[0]).toMatchObject({
      type: 'function',
      function: { strict: true },
    });
    // The call went through the executor with the session id.
    const call = standIn.calls.at(-1)!;
    expect(call.sessionId).toBe(sessionId);
    expect(call.arguments).toEqual({
      filters: [{ field: 'id', op: 'eq', value: 'ORD-1003' }],
      limit: 5,
      cursor: null,
    });

    // Saved twice, then ended: the model answered, so the session succeeded.
    expect(run.sessionEnd).toEqual({ outcome: 'succeeded', version: 3, skillCandidateId: '' });
    expect(run.sessionVersion).toBe(3);
    const stored = await memory.load(sessionId);
    expect(stored).toMatchObject({ version: 3, ended: { outcome: 'succeeded' } });
    const snapshot = readSnapshot(sessionId, stored!.snapshot);
    expect(snapshot.status).toBe('answered');
    expect(snapshot.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    // Each tool call is recorded with its resource, operation, status and call id.
    expect(snapshot.calls).toEqual([
      {
        id: seen[0]!.toolCalls[0]!.id,
        tool: searchTool,
        resource,
        operation: 'search',
        status: 'ok',
        callId: seen[0]!.toolCalls[0]!.callId,
      },
    ]);
  });

  it('agent - a fix_arguments error goes back to the model, which corrects the call', async () => {
    behaviour = lookUpOrders;
    const demo = createDemoScript();
    // First turn: the model picks an operator the id field does not allow.
    const script: ModelScript = (request) =>
      request.messages.at(-1)?.role === 'user'
        ? {
            toolCalls: [
              {
                name: searchTool,
                arguments: {
                  filters: [{ field: 'id', op: 'gt', value: 'ORD-1001' }],
                  limit: 5,
                  cursor: null,
                },
              },
            ],
          }
        : demo(request);
    const server = await startModel(script);
    const before = standIn.calls.length;
    const run = await runAgent({
      client,
      llm: llmOf(server),
      task: 'Find order ORD-1001',
      sessionId: uniqueName('s'),
    });

    expect(run.status).toBe('answered');
    expect(run.answer).toContain('ORD-1001');
    const calls = standIn.calls
      .slice(before)
      .map((c) => (c.arguments?.filters as JsonObject[])[0]!.op);
    expect(calls).toEqual(['gt', 'eq']);
    expect(run.steps.map((s) => s.toolCalls.map((c) => c.status))).toEqual([['error'], ['ok'], []]);
    // What the model read back after the bad call: the category, the path and what is expected.
    const feedback = JSON.parse(server.requests[1]!.messages.at(-1)!.content!) as JsonObject;
    expect(feedback).toMatchObject({
      status: 'error',
      code: 'ARGUMENTS_INVALID',
      category: 'fix_arguments',
      details: [{ path: 'filters[0].op', expected: 'one of eq, in, exists for field "id"' }],
    });
  });

  it('agent - stops after maxSteps when the model never answers', async () => {
    behaviour = lookUpOrders;
    const server = await startModel(() => ({
      toolCalls: [{ name: searchTool, arguments: { filters: null, limit: 1, cursor: null } }],
    }));
    const before = standIn.calls.length;
    const memory = new InMemorySessionStore();
    const sessionId = uniqueName('s');
    const run = await runAgent({
      client,
      llm: llmOf(server),
      task: 'loop forever',
      sessionId,
      maxSteps: 3,
      memory,
      endSession: true,
    });
    expect(run.status).toBe('step_limit');
    expect(run.answer).toBeNull();
    expect(run.steps).toHaveLength(3);
    expect(server.requests).toHaveLength(3);
    expect(standIn.calls.length - before).toBe(3);
    const stored = await memory.load(sessionId);
    expect(stored?.ended).toEqual({ outcome: 'failed' });
    expect(run.sessionEnd).toMatchObject({ outcome: 'failed', version: 4 });
    const snapshot = readSnapshot(sessionId, stored!.snapshot);
    expect(snapshot).toMatchObject({ status: 'step_limit', steps: 3 });
  });

  it('agent - large tool results are compacted before they re-enter the context', async () => {
    behaviour = () => ({
      status: CallStatus.OK,
      data: fromJson(
        ValueSchema,
        orders(200).map((row) => ({ ...row, note: 'x'.repeat(2_000) })),
      ),
      meta: { returned: 200, total: 5_000, truncated: true, nextCursor: 'next-page' },
    });
    const server = await startModel(createDemoScript());
    await runAgent({
      client,
      llm: llmOf(server),
      task: 'order ORD-1000 please',
      sessionId: uniqueName('s'),
      compaction: { maxRows: 10, maxBytes: 4_000, maxStringChars: 100 },
    });
    const toolMessage = server.requests[1]!.messages.at(-1)!;
    expect(Buffer.byteLength(toolMessage.content!)).toBeLessThan(6_000);
    const body = JSON.parse(toolMessage.content!) as JsonObject;
    expect((body.data as JsonObject[]).length).toBeLessThanOrEqual(10);
    expect(body).toMatchObject({
      status: 'ok',
      returned: 200,
      total: 5_000,
      next_cursor: 'next-page',
    });
    expect((body.notes as string[]).join(' ')).toMatch(/showing \d+ of 200 rows/);
  });

  it('agent - unknown tools and unparseable arguments are answered locally as fix_arguments', async () => {
    let turn = 0;
    const server = await startModel(() => {
      turn += 1;
      if (turn === 1) return { toolCalls: [{ name: 'drop_everything', arguments: {} }] };
      if (turn === 2) return { toolCalls: [{ name: searchTool, arguments: '{"filters": [' }] };
      return { content: 'giving up' };
    });
    const before = standIn.calls.length;
    const run = await runAgent({
      client,
      llm: llmOf(server),
      task: 'do things',
      sessionId: uniqueName('s'),
    });
    expect(run.status).toBe('answered');
    expect(standIn.calls.length).toBe(before);
    expect(run.steps.slice(0, 2).map((s) => s.toolCalls[0]!.error?.code)).toEqual([
      'UNKNOWN_TOOL',
      'ARGUMENTS_INVALID',
    ]);
    const feedback = JSON.parse(server.requests[1]!.messages.at(-1)!.content!) as JsonObject;
    expect(feedback).toMatchObject({ category: 'fix_arguments', code: 'UNKNOWN_TOOL' });
    expect(String(feedback.message)).toContain(searchTool);
  });
});

describe('agent - without an LLM', () => {
  it('agent - with no endpoint configured the scripted model serves the demo', async () => {
    behaviour = lookUpOrders;
    const endpoint = await llmOrScriptedModel({});
    try {
      expect(endpoint.scripted).toBe(true);
      const run = await runAgent({
        client,
        llm: endpoint.llm,
        task: 'order ORD-1007?',
        sessionId: uniqueName('s'),
      });
      expect(run.answer).toContain('ORD-1007');
    } finally {
      await endpoint.close();
    }
  });
});

describe('agent - model endpoint failures', () => {
  it('agent - a failing or unreachable endpoint is retryable; a refused request is internal', async () => {
    const failing = await startModel(() => ({ error: { status: 503, message: 'overloaded' } }));
    const overloaded = await runAgent({
      client,
      llm: llmOf(failing),
      task: 't',
      sessionId: uniqueName('s'),
    }).catch((e: unknown) => e);
    expect(overloaded).toBeInstanceOf(RetryableError);
    expect(overloaded).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    const baseURL = failing.baseURL;
    await failing.close();
    model = undefined;
    const unreachable = await runAgent({
      client,
      llm: { baseURL, model: 'm', maxRetries: 0 },
      task: 't',
      sessionId: uniqueName('s'),
    }).catch((e: unknown) => e);
    expect(unreachable).toBeInstanceOf(RetryableError);

    const refusing = await startModel(() => ({
      error: { status: 400, message: 'tools not supported' },
    }));
    const refused = await runAgent({
      client,
      llm: llmOf(refusing),
      task: 't',
      sessionId: uniqueName('s'),
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InternalError);
    expect((refused as Error).message).toContain('tools not supported');
  });
});

describe('agent - parked calls', () => {
  it('agent - with completionWaitMs a call parked for approval is awaited and its result fed back', async () => {
    behaviour = (request) => {
      setTimeout(() => {
        standIn.complete(request.callId, {
          status: CallStatus.OK,
          data: fromJson(ValueSchema, orders(1)),
        });
      }, 50);
      return { status: CallStatus.PENDING_APPROVAL, approvalId: 'appr-agent' };
    };
    const server = await startModel(createDemoScript());
    const run = await runAgent({
      client,
      llm: llmOf(server),
      task: 'order ORD-1000?',
      sessionId: uniqueName('s'),
      completionWaitMs: 30_000,
    });
    expect(run.steps[0]!.toolCalls[0]!.status).toBe('ok');
    expect(run.answer).toContain('ORD-1000');
  });

  it('agent - without waiting, a parked call is reported to the model as pending approval', async () => {
    behaviour = () => ({ status: CallStatus.PENDING_APPROVAL, approvalId: 'appr-agent-2' });
    const server = await startModel(createDemoScript());
    const run = await runAgent({
      client,
      llm: llmOf(server),
      task: 'order ORD-1000?',
      sessionId: uniqueName('s'),
    });
    expect(run.steps[0]!.toolCalls[0]!.status).toBe('pending_approval');
    expect(run.answer).toBe('The request awaits approval by a person (approval appr-agent-2).');
  });
});

describe('agent - sessions', () => {
  it('agent - a second run resumes the stored conversation; a concurrent writer is a VERSION_CONFLICT', async () => {
    behaviour = lookUpOrders;
    const server = await startModel(createDemoScript());
    const memory = new InMemorySessionStore();
    const sessionId = uniqueName('s');
    // One conversation over several runs: by default a run leaves the session open.
    const endSession = false;
    await runAgent({
      client,
      llm: llmOf(server),
      task: 'order ORD-1002?',
      sessionId,
      memory,
    });
    expect((await memory.load(sessionId))?.ended).toBeUndefined();
    const second = await runAgent({
      client,
      llm: llmOf(server),
      task: 'and order ORD-1004?',
      sessionId,
      memory,
      endSession,
    });
    expect(second.answer).toContain('ORD-1004');
    const lastRequest = server.requests.at(-1)!;
    expect(lastRequest.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'order ORD-1002?',
      'and order ORD-1004?',
    ]);
    expect(second.sessionVersion).toBe(4);
    const snapshot = readSnapshot(sessionId, (await memory.load(sessionId))!.snapshot);
    expect(snapshot.steps).toBe(4);

    // Another writer bumps the session while a run is under way: the run's next save fails.
    const racing = runAgent({
      client,
      llm: llmOf(server),
      task: 'order ORD-1005?',
      sessionId,
      memory,
      endSession,
      onStep: async () => {
        const current = await memory.load(sessionId);
        await memory.save(sessionId, current!.snapshot, current!.version);
      },
    });
    await expect(racing).rejects.toMatchObject({
      code: 'VERSION_CONFLICT',
      category: 'fix_arguments',
    });
  });

  it('agent - an ended session takes no more runs; a failed or aborted run ends it as such', async () => {
    behaviour = lookUpOrders;
    const memory = new InMemorySessionStore();
    const answered = await startModel(createDemoScript());
    const sessionId = uniqueName('s');
    await runAgent({
      client,
      llm: llmOf(answered),
      task: 'order ORD-1002?',
      sessionId,
      memory,
      endSession: true,
    });
    const asked = answered.requests.length;
    await expect(
      runAgent({ client, llm: llmOf(answered), task: 'again?', sessionId, memory }),
    ).rejects.toMatchObject({
      code: 'VERSION_CONFLICT',
      message: expect.stringContaining('has ended (succeeded) and takes no more runs') as string,
    });
    expect(answered.requests.length).toBe(asked);
    await answered.close();

    // The model fails after a step was saved: the run throws and the session ends as failed.
    let turn = 0;
    const failing = await startModel(() => {
      turn += 1;
      return turn === 1
        ? {
            toolCalls: [{ name: searchTool, arguments: { filters: null, limit: 1, cursor: null } }],
          }
        : { error: { status: 503, message: 'overloaded' } };
    });
    const failed = uniqueName('s');
    await expect(
      runAgent({
        client,
        llm: llmOf(failing),
        task: 'orders',
        sessionId: failed,
        memory,
        endSession: true,
      }),
    ).rejects.toBeInstanceOf(RetryableError);
    expect((await memory.load(failed))?.ended).toEqual({ outcome: 'failed' });
    await failing.close();

    // Aborted by its caller: abandoned.
    const loops = await startModel(() => ({
      toolCalls: [{ name: searchTool, arguments: { filters: null, limit: 1, cursor: null } }],
    }));
    const abort = new AbortController();
    const abandoned = uniqueName('s');
    await expect(
      runAgent({
        client,
        llm: llmOf(loops),
        task: 'orders',
        sessionId: abandoned,
        memory,
        endSession: true,
        signal: abort.signal,
        onStep: () => abort.abort(),
      }),
    ).rejects.toBeDefined();
    expect((await memory.load(abandoned))?.ended).toEqual({ outcome: 'abandoned' });
  });

  it('agent - the stored conversation stays within its byte budget, dropping the oldest turns', async () => {
    behaviour = lookUpOrders;
    const server = await startModel(createDemoScript());
    const memory = new InMemorySessionStore();
    const sessionId = uniqueName('s');
    for (const id of ['ORD-1001', 'ORD-1002', 'ORD-1003', 'ORD-1004']) {
      await runAgent({
        client,
        llm: llmOf(server),
        task: `order ${id}?`,
        sessionId,
        memory,
        maxConversationBytes: 2_500,
        endSession: false,
      });
    }
    const stored = (await memory.load(sessionId))!;
    expect(Buffer.byteLength(JSON.stringify(stored.snapshot.messages))).toBeLessThanOrEqual(2_500);
    const snapshot = readSnapshot(sessionId, stored.snapshot);
    const users = snapshot.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(users.at(-1)).toBe('order ORD-1004?');
    expect(users).not.toContain('order ORD-1001?');
    expect(snapshot.messages[0]!.role).toBe('system');
    // The model saw the bounded conversation too.
    expect(server.requests.at(-1)!.messages.map((m) => m.content)).not.toContain('order ORD-1001?');
  });

  it('agent - a stored snapshot that is not one is refused with the bad path', async () => {
    const server = await startModel(createDemoScript());
    const memory = new InMemorySessionStore();
    const sessionId = uniqueName('s');
    await memory.save(
      sessionId,
      { format: 'tollgate.agent.v1', messages: [{ role: 'wizard' }] },
      0,
    );
    await expect(
      runAgent({ client, llm: llmOf(server), task: 'hi', sessionId, memory }),
    ).rejects.toMatchObject({
      category: 'internal',
      message: expect.stringContaining('messages[0].role'),
    });
    expect(server.requests).toHaveLength(0);
  });
});
