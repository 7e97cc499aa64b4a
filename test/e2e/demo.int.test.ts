/**
 * The demo's four steps, asserted end to end against the real stack through the `tollgate`
 * binary and the SDK: different tools per agent, an order looked up through the agent loop
 * with only visible fields and an audit record under the same trace id, a denial, a
 * fix_arguments correction and an approval-gated write, and a preference learned and recalled.
 */
import { spawn } from 'node:child_process';
import { createClient } from '@tollgate/contracts';
import { MemoryService, PreferenceStatus } from '@tollgate/contracts/memory/v1';
import { TollgateClient } from '@tollgate/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, infra } from '../support/infra.js';
import { repoRoot } from '../support/process.js';
import { CLI, parseJson, stackEnv, tollgate, tollgateJson } from './support/cli.js';
import { ordersScenario } from './support/scenario.js';
import type { OrdersScenario } from './support/scenario.js';
import { bringDown, bringUp } from './support/stack.js';

interface ToolDoc {
  name: string;
  operation: string;
  allows: {
    filters: Record<string, string[]>;
    fields: string[];
    limit?: number;
    writable: string[];
  };
}
interface ToolCallDoc {
  tool: string;
  arguments: Record<string, unknown>;
  status: string;
  callId?: string;
  error?: { code: string; category: string };
  meta?: { traceId: string; returned: number };
  result: { status: string; data?: Array<Record<string, unknown>> } | null;
}
interface ChatDoc {
  sessionId: string;
  model: { scripted: boolean };
  remembered: Array<{ key: string; text: string }>;
  turns: Array<{
    message: string;
    run: { status: string; answer: string | null; steps: Array<{ toolCalls: ToolCallDoc[] }> };
  }>;
}
interface AuditDoc {
  records: Array<{
    sequence: number;
    event: { type: string; traceId: string; callCompleted?: { callId: string; status: string } };
  }>;
}

const HIDDEN_FROM_SUPPORT = ['user_id', 'customer.email'];
const NEVER_RETURNED = ['internal_note', 'tenant_id'];

let stack: { startedHere: boolean } | undefined;
let scenario: OrdersScenario;
let as: string[];

/** Every key of a result row, nested objects as dotted paths. */
function paths(row: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(row).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? paths(value as Record<string, unknown>, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}

function calls(chat: ChatDoc): ToolCallDoc[] {
  return chat.turns.flatMap((t) => t.run.steps.flatMap((s) => s.toolCalls));
}

/** The audit records of a call, once one of type `type` is there. */
async function auditOf(callId: string, type = 'call.completed'): Promise<AuditDoc['records']> {
  return eventually(
    async () => {
      const doc = await tollgateJson<AuditDoc>([...as, 'audit', 'query', '--call', callId]);
      return doc.records.some((r) => r.event.type === type) ? doc.records : undefined;
    },
    60_000,
    500,
  );
}

beforeAll(async () => {
  stack = await bringUp();
  scenario = await ordersScenario({ seed: true });
  as = ['--tenant', scenario.tenant];
  const applied = await tollgateJson<{ applied: Array<{ outcome: string }> }>([
    ...as,
    'apply',
    '-f',
    scenario.dir,
  ]);
  expect(applied.applied.map((a) => a.outcome)).toEqual(Array(7).fill('created'));
}, 900_000);

afterAll(async () => {
  await tollgate([...as, 'resources', 'delete', 'es_orders']).catch(() => undefined);
  await scenario?.cleanup();
  await bringDown(stack);
}, 180_000);

describe('e2e - the orders demo', () => {
  it('e2e - step 1: support and order_ops get different tools, exactly as the permissions say', async () => {
    const support = await tollgateJson<{ tools: ToolDoc[] }>([
      ...as,
      'tools',
      'ls',
      '--as',
      'support',
    ]);
    const ops = await tollgateJson<{ tools: ToolDoc[] }>([
      ...as,
      'tools',
      'ls',
      '--as',
      'order_ops',
    ]);
    expect(support.tools.map((t) => t.name)).toEqual([
      'es_orders_search',
      'es_orders_get',
      'es_orders_count',
    ]);
    expect(ops.tools.map((t) => t.name)).toEqual([
      'es_orders_search',
      'es_orders_get',
      'es_orders_count',
      'es_orders_aggregate',
      'es_orders_write',
    ]);
    const search = (doc: { tools: ToolDoc[] }) =>
      doc.tools.find((t) => t.operation === 'search')!.allows;
    // Fields only order_ops may filter on or see.
    for (const field of HIDDEN_FROM_SUPPORT) {
      expect(Object.keys(search(support).filters)).not.toContain(field);
      expect(search(support).fields).not.toContain(field);
      expect(Object.keys(search(ops).filters)).toContain(field);
      expect(search(ops).fields).toContain(field);
    }
    for (const field of NEVER_RETURNED) {
      expect(search(support).fields).not.toContain(field);
      expect(search(ops).fields).not.toContain(field);
    }
    // Operators follow field types; limits follow the policies (20 for support, 100 otherwise).
    expect(search(support).filters.amount).toEqual(['eq', 'gt', 'gte', 'lt', 'lte', 'between']);
    expect(search(support).filters.status).toEqual(['eq', 'in', 'exists']);
    expect(search(support).limit).toBe(20);
    expect(search(ops).limit).toBe(100);
  }, 120_000);

  it('e2e - step 2: "find order 12345" and "搜索 id 为 12345 的订单" run through the agent loop to visible fields, audited under the same trace id', async () => {
    const chat = await tollgateJson<ChatDoc>(
      [
        ...as,
        'chat',
        '--as',
        'support',
        '--user',
        'alice',
        '-m',
        'find order 12345',
        '搜索 id 为 12345 的订单',
      ],
      { timeoutMs: 180_000 },
    );
    expect(chat.model.scripted).toBe(true);
    const lookups = calls(chat);
    expect(lookups).toHaveLength(2);
    for (const call of lookups) {
      expect(call.tool).toBe('es_orders_search');
      expect(call.arguments.filters).toEqual([{ field: 'id', op: 'eq', value: '12345' }]);
      expect(call.status).toBe('ok');
      const rows = call.result!.data!;
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: '12345', status: 'paid' });
      const shown = paths(rows[0]!).filter((p) => p !== '_id');
      for (const field of [...HIDDEN_FROM_SUPPORT, ...NEVER_RETURNED])
        expect(shown).not.toContain(field);
      expect(rows[0]!.client_ip).toMatch(/^sha256:/);
      const records = await auditOf(call.callId!);
      const completed = records.find((r) => r.event.type === 'call.completed')!;
      expect(completed.event.callCompleted).toMatchObject({
        callId: call.callId,
        status: 'CALL_STATUS_OK',
      });
      expect(completed.event.traceId).toBe(call.meta!.traceId);
      expect(call.meta!.traceId).toMatch(/^[0-9a-f]{32}$/);
    }
    for (const turn of chat.turns) expect(turn.run.answer).toContain('12345');
    // The session replays step by step: what was offered, then each call.
    const replay = await tollgateJson<{ steps: Array<{ type: string; callId?: string }> }>([
      ...as,
      'audit',
      'replay',
      chat.sessionId,
    ]);
    const types = replay.steps.map((s) => s.type);
    expect(types.indexOf('tools.listed')).toBeGreaterThanOrEqual(0);
    expect(types.indexOf('tools.listed')).toBeLessThan(types.indexOf('call.completed'));
    expect(replay.steps.filter((s) => s.type === 'call.completed').map((s) => s.callId)).toEqual(
      lookups.map((c) => c.callId),
    );
  }, 300_000);

  it('e2e - step 3: a restricted field is refused, a tool not offered is denied by policy', async () => {
    const restricted = await tollgate([
      '--json',
      ...as,
      'call',
      'es_orders_search',
      '--as',
      'support',
      '--args',
      '{"filters":[{"field":"customer.email","op":"eq","value":"ana.li.1001@example.com"}]}',
    ]);
    expect(restricted.code).toBe(1);
    const envelope = parseJson<{
      status: string;
      error: { code: string; category: string; details: Array<{ path: string }> };
    }>(restricted.stdout);
    expect(envelope).toMatchObject({
      status: 'error',
      error: { code: 'ARGUMENTS_INVALID', category: 'fix_arguments' },
    });
    expect(envelope.error.details.map((d) => d.path)).toContain('filters[0].field');
    expect(restricted.stderr).toMatch(/^tollgate: ARGUMENTS_INVALID: /);

    // An agent that calls a tool it was never offered (here order_ops's aggregate) is denied
    // by the executor's policy check, whatever it sends.
    const token = async (agent: string) =>
      (await tollgateJson<{ token: string }>([...as, 'token', 'issue', '--agent', agent])).token;
    const ops = await TollgateClient.connect({
      natsUrl: infra.natsUrl,
      token: await token('order_ops'),
    });
    const support = await TollgateClient.connect({
      natsUrl: infra.natsUrl,
      token: await token('support'),
    });
    try {
      const aggregate = (await ops.listTools()).find((t) => t.name === 'es_orders_aggregate')!;
      const denied = await support.call(aggregate, {
        aggregation: { kind: 'terms', field: 'status' },
      });
      expect(denied.status).toBe('error');
      if (denied.status !== 'error') return;
      expect(denied.error.code).toBe('POLICY_DENIED');
      expect(denied.error.category).toBe('denied');
      expect(denied.meta?.traceId).toMatch(/^[0-9a-f]{32}$/);
      const records = await auditOf(denied.callId, 'call.denied');
      const record = records.find((r) => r.event.type === 'call.denied')!;
      expect(record.event.traceId).toBe(denied.meta!.traceId);
    } finally {
      await ops.close();
      await support.close();
    }
  }, 300_000);

  it('e2e - step 3: a fix_arguments error goes back to the model, which corrects the call', async () => {
    const chat = await tollgateJson<ChatDoc>(
      [
        ...as,
        'chat',
        '--as',
        'support',
        '--user',
        'alice',
        '-m',
        'show me the 50 largest paid orders',
      ],
      { timeoutMs: 180_000 },
    );
    const [first, second] = calls(chat);
    expect(first).toMatchObject({
      tool: 'es_orders_search',
      status: 'error',
      error: { code: 'ARGUMENTS_INVALID', category: 'fix_arguments' },
      arguments: { limit: 50 },
    });
    expect(second).toMatchObject({
      tool: 'es_orders_search',
      status: 'ok',
      arguments: { limit: 20 },
    });
    const rows = second!.result!.data!;
    expect(rows).toHaveLength(20);
    const amounts = rows.map((r) => r.amount as number);
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
    expect(rows.every((r) => r.status === 'paid')).toBe(true);
    expect(chat.turns[0]!.run.status).toBe('answered');
  }, 300_000);

  it('e2e - step 3: a write waits for approval and completes after `tollgate approvals approve`', async () => {
    const key = `e2e-${Date.now()}`;
    const child = spawn(
      process.execPath,
      [
        CLI,
        '--json',
        ...as,
        'call',
        'es_orders_write',
        '--as',
        'order_ops',
        '--args',
        '{"id":"12346","document":{"status":"shipped"}}',
        '--idempotency-key',
        key,
        '--wait',
        '--timeout',
        '120',
      ],
      { cwd: repoRoot, env: stackEnv, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));

    const pending = await eventually(
      async () => {
        const doc = await tollgateJson<{
          approvals: Array<{ id: string; tool: string; arguments: unknown }>;
        }>([...as, 'approvals', 'ls']);
        return doc.approvals.find((a) => a.tool === 'es_orders_write');
      },
      60_000,
      500,
    );
    expect(pending.arguments).toEqual({ id: '12346', document: { status: 'shipped' } });
    const before = await scenario.es.get({ index: scenario.index, id: '12346' });
    expect((before._source as { status: string }).status).not.toBe('shipped');

    const approved = await tollgateJson<{ status: string; decidedBy: string }>([
      ...as,
      'approvals',
      'approve',
      pending.id,
      '--reason',
      'customer confirmed by phone',
    ]);
    expect(approved.status).toBe('APPROVAL_STATUS_APPROVED');
    expect(approved.decidedBy).toMatch(/^tollgate-cli\//);

    expect(await exited, stderr).toBe(0);
    const final = parseJson<{ status: string; callId: string; meta: { traceId: string } }>(stdout);
    expect(final.status).toBe('ok');
    const after = await scenario.es.get({ index: scenario.index, id: '12346' });
    expect((after._source as { status: string }).status).toBe('shipped');
    const records = await eventually(
      async () => {
        const all = await auditOf(final.callId);
        return all.some((r) => r.event.callCompleted?.status === 'CALL_STATUS_OK')
          ? all
          : undefined;
      },
      60_000,
      500,
    );
    expect(records.map((r) => r.event.type)).toEqual(
      expect.arrayContaining(['approval.requested', 'approval.decided', 'call.completed']),
    );
    const again = await tollgateJson<{ approvals: Array<{ id: string }> }>([
      ...as,
      'approvals',
      'ls',
    ]);
    expect(again.approvals.map((a) => a.id)).not.toContain(pending.id);
  }, 300_000);

  it('e2e - step 4: a user who keeps querying orders has it remembered, and it is recalled in the next session', async () => {
    const user = `pref-${Date.now().toString(36)}`;
    for (const id of ['10001', '10002', '10003']) {
      await tollgateJson([
        ...as,
        'call',
        'es_orders_search',
        '--as',
        'support',
        '--user',
        user,
        '--args',
        JSON.stringify({ filters: [{ field: 'id', op: 'eq', value: id }] }),
      ]);
    }
    const { token } = await tollgateJson<{ token: string }>([
      ...as,
      'token',
      'issue',
      '--agent',
      'support',
      '--user',
      user,
    ]);
    const memory = createClient(
      MemoryService,
      process.env.TOLLGATE_MEMORY_GRPC_ADDR ?? '127.0.0.1:7065',
      {
        metadata: { authorization: `Bearer ${token}` },
        defaultDeadlineMs: 10_000,
      },
    );
    try {
      const learned = await eventually(
        async () => {
          const { preferences } = await memory.listPreferences({ status: PreferenceStatus.ACTIVE });
          return preferences.find((p) => p.key === 'frequent_resource:es_orders');
        },
        90_000,
        1_000,
      );
      expect(learned.text).toBe('Usually queries es_orders.');
    } finally {
      memory.close();
    }
    const next = await tollgateJson<ChatDoc>(
      [...as, 'chat', '--as', 'support', '--user', user, '-m', 'find order 10004'],
      {
        timeoutMs: 180_000,
      },
    );
    expect(next.remembered.map((p) => p.text)).toContain('Usually queries es_orders.');
    const stranger = await tollgateJson<ChatDoc>(
      [...as, 'chat', '--as', 'support', '--user', `${user}-other`, '-m', 'find order 10004'],
      { timeoutMs: 180_000 },
    );
    expect(stranger.remembered).toEqual([]);
  }, 300_000);
});
