/**
 * The demo's steps (scripts/demo.steps.ts, numbered as it tells them), asserted end to end
 * against the real stack through the `tollgate` binary and the SDK: different tools per agent,
 * an order looked up through the agent loop with only visible fields and an audit record under
 * the same trace id, a denial, a fix_arguments correction and an approval-gated write, a
 * preference learned and recalled, a skill reviewed and reused, and the other kinds the demo
 * declares — a PostgreSQL table and an HTTP API (Directus) — discovered, applied and called.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { stringify } from 'yaml';
import { createClient } from '@tollgate/contracts';
import { MemoryService, PreferenceStatus } from '@tollgate/contracts/memory/v1';
import { TollgateClient } from '@tollgate/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SHOP_ROW_COUNT,
  dropShopTable,
  seedShopTable,
  shopResource,
} from '../fixtures/demo-shop.js';
import { TICKETS, helpDeskResource, seedTickets } from '../fixtures/help-desk.js';
import { directusAccess, eventually, infra, postgresAdmin, uniqueName } from '../support/infra.js';
import { repoRoot } from '../support/process.js';
import {
  CLI,
  E2E_CREDENTIALS,
  parseJson,
  stackEnv,
  tollgate,
  tollgateJson,
} from './support/cli.js';
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
  skillSteps?: ToolCallDoc[];
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
    run: {
      status: string;
      answer: string | null;
      steps: Array<{ toolCalls: ToolCallDoc[] }>;
      skillsOffered: string[];
    };
  }>;
  ended?: { outcome: string; skillCandidateId: string };
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
  for (const name of ['es_orders', 'shop_orders', 'help_desk'])
    await tollgate([...as, 'resources', 'delete', name]).catch(() => undefined);
  await scenario?.cleanup();
  await bringDown(stack);
}, 180_000);

/** Puts a secret into the scenario tenant's credential namespace; resolves its reference. */
async function credential(file: string, secret: string): Promise<string> {
  const dir = join(E2E_CREDENTIALS, scenario.tenant, 'prod');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, file), secret, { mode: 0o600 });
  return `file://${join(dir, file)}`;
}

/** As the demo does: `tollgate discover`, then `tollgate apply` of what discovery completed. */
async function discoverAndApply(declared: Record<string, unknown>): Promise<void> {
  const name = (declared.metadata as { name: string }).name;
  const file = join(scenario.dir, 'kinds', `${name}.yaml`);
  await mkdir(join(scenario.dir, 'kinds'), { recursive: true });
  await writeFile(file, stringify({ ...declared }));
  const found = await tollgateJson<{ descriptor: Record<string, unknown> }>(
    [...as, 'discover', '-f', file],
    { timeoutMs: 60_000 },
  );
  await writeFile(file, stringify(found.descriptor));
  const applied = await tollgateJson<{ applied: Array<{ outcome: string }> }>([
    ...as,
    'apply',
    '-f',
    file,
  ]);
  expect(applied.applied.map((a) => a.outcome)).toEqual(['created']);
}

/** Support's tools of one resource, once the synthesizer offers them. */
async function supportToolsOf(resource: string): Promise<Array<ToolDoc & { resource: string }>> {
  return eventually(
    async () => {
      const doc = await tollgateJson<{ tools: Array<ToolDoc & { resource: string }> }>([
        ...as,
        'tools',
        'ls',
        '--as',
        'support',
      ]);
      const own = doc.tools.filter((t) => t.resource === resource);
      return own.length > 0 ? own : undefined;
    },
    30_000,
    500,
  );
}

interface CallDoc {
  status: string;
  callId: string;
  data: Array<Record<string, unknown>>;
  meta: { traceId: string };
}

/** `tollgate call <tool> --as support`, and its call.completed record under the same trace. */
async function supportCall(tool: string, args: Record<string, unknown>): Promise<CallDoc> {
  const call = await tollgateJson<CallDoc>([
    ...as,
    'call',
    tool,
    '--as',
    'support',
    '--args',
    JSON.stringify(args),
  ]);
  expect(call.status).toBe('ok');
  const records = await auditOf(call.callId);
  const completed = records.find((r) => r.event.type === 'call.completed')!;
  expect(completed.event.callCompleted).toMatchObject({
    callId: call.callId,
    status: 'CALL_STATUS_OK',
  });
  expect(completed.event.traceId).toBe(call.meta.traceId);
  return call;
}

describe('e2e - the orders demo', () => {
  it('e2e - step 2: support and order_ops get different tools, exactly as the permissions say', async () => {
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

  it('e2e - step 3: "find order 12345" and "搜索 id 为 12345 的订单" run through the agent loop to visible fields, audited under the same trace id', async () => {
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

  it('e2e - step 4: a restricted field is refused, a tool not offered is denied by policy', async () => {
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

  it('e2e - step 4: a fix_arguments error goes back to the model, which corrects the call', async () => {
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

  it('e2e - step 4: a write waits for approval and completes after `tollgate approvals approve`', async () => {
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

  it('e2e - step 5: a user who keeps querying orders has it remembered, and it is recalled in the next session', async () => {
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

  it('e2e - step 6: a procedure becomes a skill only once a reviewer confirms it; the next session uses it, every step a governed, audited call', async () => {
    const user = `skill-${Date.now().toString(36)}`;
    const chat = (who: string, ...messages: string[]) =>
      tollgateJson<ChatDoc>([...as, 'chat', '--as', 'support', '--user', who, '-m', ...messages], {
        timeoutMs: 180_000,
      });
    const ask = 'find orders 20001 and 20002';
    const first = await chat(user, 'find order 12345', 'find order 10001');
    const candidate = first.ended?.skillCandidateId ?? '';
    expect(candidate).not.toBe('');

    // Proposed is not in effect: nothing is offered before a person confirms it.
    const before = await chat(user, ask);
    expect(before.turns[0]!.run.skillsOffered).toEqual([]);

    await tollgate([
      ...as,
      'memory',
      'candidates',
      'confirm',
      candidate,
      '--for',
      'support',
      '--user',
      user,
    ]);
    const next = await chat(user, ask);
    const offered = next.turns[0]!.run.skillsOffered;
    expect(offered).toHaveLength(1);
    const used = calls(next).find((c) => c.tool === offered[0]);
    expect(used?.status).toBe('ok');
    // The model gave only the inputs; the steps are the reviewed ones, with those values bound.
    expect(Object.keys(used!.arguments).sort()).toEqual(['id', 'id_2', 'limit']);
    const steps = used!.skillSteps ?? [];
    expect(steps.map((s) => [s.tool, s.status])).toEqual([
      ['es_orders_search', 'ok'],
      ['es_orders_search', 'ok'],
    ]);
    expect(
      steps.map((s) => (s.arguments as { filters: Array<{ value: string }> }).filters[0]!.value),
    ).toEqual(['20001', '20002']);
    for (const step of steps) {
      const records = await auditOf(step.callId!);
      expect(records.find((r) => r.event.type === 'call.completed')?.event.callCompleted).toEqual(
        expect.objectContaining({ callId: step.callId, status: 'CALL_STATUS_OK' }),
      );
    }

    // Another user of the same agent has no such skill.
    const stranger = await chat(`${user}-other`, ask);
    expect(stranger.turns[0]!.run.skillsOffered).toEqual([]);
  }, 400_000);

  it('e2e - step 8: a PostgreSQL table declared as the demo does is discovered from the catalog and applied; support searches it with the e-mail masked and the margin hidden, audited', async () => {
    const admin = postgresAdmin();
    const db = new pg.Pool({ ...admin, max: 1 });
    const table = {
      schema: uniqueName('e2e_shop'),
      login: uniqueName('tg_e2e_shop'),
      password: randomBytes(16).toString('hex'),
    };
    try {
      expect(await seedShopTable(db, table)).toBe(SHOP_ROW_COUNT);
      // The demo seeds on every run: a second time changes nothing.
      expect(await seedShopTable(db, table)).toBe(SHOP_ROW_COUNT);
      const ref = await credential(
        'shop.json',
        JSON.stringify({ username: table.login, password: table.password }),
      );
      const server = new URL(`postgres://${admin.host}:${admin.port}/${admin.database}`);
      await discoverAndApply(
        shopResource({ tenant: scenario.tenant, server, schema: table.schema, credentialRef: ref }),
      );
      const tools = await supportToolsOf('shop_orders');
      expect(tools.map((t) => t.name).sort()).toEqual([
        'shop_orders_count',
        'shop_orders_get',
        'shop_orders_search',
      ]);
      const search = tools.find((t) => t.name === 'shop_orders_search')!.allows;
      expect(search.fields).toEqual(['customer_email', 'id', 'placed_at', 'status', 'total']);
      expect(Object.keys(search.filters).sort()).toEqual(['id', 'status', 'total']);

      const call = await supportCall('shop_orders_search', {
        filters: [{ field: 'id', op: 'eq', value: '12345' }],
      });
      expect(call.data).toEqual([
        {
          id: '12345',
          customer_email: '***',
          status: 'shipped',
          total: '86.65',
          placed_at: '2026-11-15T09:20:00Z',
        },
      ]);
    } finally {
      await tollgate([...as, 'resources', 'delete', 'shop_orders']);
      await dropShopTable(db, table);
      await db.end();
    }
  }, 300_000);

  it("e2e - step 9: an HTTP API declared as the demo does (two operations of Directus's OpenAPI document) is discovered and applied; support finds the ticket about order 12345 with the e-mail masked and the assignee hidden, audited", async () => {
    const desk = directusAccess();
    await seedTickets(desk.url, desk.token);
    // The demo opens its tickets on every run: a second time opens none.
    expect(await seedTickets(desk.url, desk.token)).toBe(0);
    const ref = await credential('help-desk.token', desk.token);
    await discoverAndApply(
      helpDeskResource({ tenant: scenario.tenant, url: desk.url, credentialRef: ref }),
    );
    const tools = await supportToolsOf('help_desk');
    expect(tools.map((t) => t.name).sort()).toEqual([
      'help_desk_get_ticket',
      'help_desk_list_tickets',
    ]);
    for (const tool of tools) expect(tool.allows.fields).not.toContain('assignee');

    const call = await supportCall('help_desk_list_tickets', { search: '12345', limit: 5 });
    const ticket = call.data.find((r) => r.subject === TICKETS[0].subject);
    expect(ticket).toMatchObject({ priority: 'high', status: 'open' });
    expect(ticket!.requester_email).not.toBe(TICKETS[0].requester_email);
    for (const row of call.data) expect(Object.keys(row)).not.toContain('assignee');
  }, 300_000);
});
