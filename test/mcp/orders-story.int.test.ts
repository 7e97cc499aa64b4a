/**
 * The orders story through MCP, with the official v1 client as an agent runtime would use it:
 * find order 12345; a field the agent may not see; a fix_arguments correction; a write that
 * waits for approval and completes once; every call recorded with the MCP session as its
 * session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clone } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { ApprovalSchema, ApprovalStatus } from '@tollgate/contracts/policy/v1';
import { EventPublisher, EventTypes, encodeEnvelope, envelope } from '@tollgate/kit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually } from '../support/infra.js';
import { CLIENTS } from './support/oidc.js';
import { startMcpStack } from './support/stack.js';
import type { McpStack } from './support/stack.js';

let s: McpStack;
let support: Client;
let supportTransport: StreamableHTTPClientTransport;
let clerk: Client;
let clerkTransport: StreamableHTTPClientTransport;

async function connect(token: string): Promise<[Client, StreamableHTTPClientTransport]> {
  const client = new Client({ name: 'orders-story', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(s.url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return [client, transport];
}

type Result = Awaited<ReturnType<Client['callTool']>> & {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
  structuredContent?: Record<string, unknown>;
};

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

beforeAll(async () => {
  s = await startMcpStack();
  [support, supportTransport] = await connect(await s.as.clientToken(CLIENTS.support, s.url.href));
  [clerk, clerkTransport] = await connect(await s.as.clientToken(CLIENTS.clerk, s.url.href));
});
afterAll(async () => {
  await support?.close();
  await clerk?.close();
  await s?.stop();
});

describe('mcp orders story', () => {
  it('mcp orders story - each connection is an MCP session the gateway signed', () => {
    expect(supportTransport.sessionId).toMatch(/^mcp-[0-9a-f]{32}\.[0-9a-f]{32}$/);
    expect(clerkTransport.sessionId).not.toBe(supportTransport.sessionId);
  });

  it("mcp orders story - tollgate_find_tools ranks the agent's tools for a task", async () => {
    const found = await call(support, 'tollgate_find_tools', {
      task: 'find order 12345',
      top_k: 3,
    });
    expect(found.isError ?? false).toBe(false);
    const names = (found.structuredContent!.tools as Array<{ name: string }>).map((t) => t.name);
    expect(names).toContain('es_orders_search');
    expect(names).not.toContain('es_orders_write');
    const none = await call(support, 'tollgate_find_tools', { task: 'book a flight to Lisbon' });
    expect(none.structuredContent).toEqual({ tools: [] });
    const bad = await call(support, 'tollgate_find_tools', { task: '' });
    expect(bad.isError).toBe(true);
  });

  it('mcp orders story - find order 12345', async () => {
    const result = await call(support, 'es_orders_search', {
      filters: [{ field: 'id', op: 'eq', value: '12345' }],
      fields: ['id', 'amount', 'status'],
    });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({
      status: 'ok',
      data: [{ id: '12345' }],
      meta: { resource: 'es_orders', returned: 1 },
    });
    expect(Object.keys((result.structuredContent!.data as object[])[0]!).sort()).toEqual([
      '_id',
      'amount',
      'id',
      'status',
    ]);
  });

  it('mcp orders story - a field the agent may not see is refused, naming the path and what is allowed', async () => {
    const before = s.proxy.requests.length;
    const result = await call(support, 'es_orders_search', {
      filters: [{ field: 'id', op: 'eq', value: '12345' }],
      fields: ['id', 'customer.email'],
    });
    expect(result.isError).toBe(true);
    const text = result.content[0]!.text;
    expect(text).toMatch(/^ARGUMENTS_INVALID \(fix_arguments\)/);
    expect(text).toContain('- fields[1]:');
    expect(text).toContain('Correct the arguments');
    expect(result.structuredContent).toMatchObject({
      status: 'error',
      error: { category: 'fix_arguments' },
    });
    expect(s.proxy.requests.length).toBe(before);
  });

  it('mcp orders story - a fix_arguments correction: the model fixes what the text says and succeeds', async () => {
    const wrong = await call(support, 'es_orders_search', {
      filters: [{ field: 'amount', op: 'match', value: 'big' }],
      limit: 5,
    });
    expect(wrong.isError).toBe(true);
    expect(wrong.content[0]!.text).toContain('filters[0]');
    const fixed = await call(support, 'es_orders_search', {
      filters: [{ field: 'amount', op: 'gte', value: 100 }],
      limit: 5,
    });
    expect(fixed.isError ?? false).toBe(false);
    const rows = fixed.structuredContent!.data as Array<{ amount: number }>;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.amount >= 100)).toBe(true);
  });

  it('mcp orders story - a write waits for approval, then completes exactly once', async () => {
    const before = await s.h.es.get({ index: s.index, id: '12345' });
    const parked = await call(clerk, 'es_orders_write', {
      id: '12345',
      document: { status: 'refunded' },
    });
    expect(parked.isError ?? false).toBe(false);
    expect(parked.structuredContent).toMatchObject({ status: 'pending_approval' });
    const callId = parked.structuredContent!.callId as string;
    expect(parked.content[0]!.text).toContain(`tollgate_call_status with {"call_id":"${callId}"}`);
    const waiting = await call(clerk, 'tollgate_call_status', { call_id: callId });
    expect(waiting.structuredContent).toMatchObject({ status: 'pending_approval', callId });
    // Another principal cannot read the call's outcome.
    const foreign = await call(support, 'tollgate_call_status', { call_id: callId });
    expect(foreign.isError).toBe(true);

    const requested = await s.h.eventOf(callId, EventTypes.approvalRequested);
    if (requested.payload.case !== 'approvalRequested') throw new Error('no approval requested');
    const decided = clone(ApprovalSchema, requested.payload.value.approval!);
    Object.assign(decided, {
      status: ApprovalStatus.APPROVED,
      decidedBy: 'approver_bot',
      decidedAt: timestampFromMs(Date.now()),
    });
    const event = envelope(EventTypes.approvalDecided, decided.principal!.tenant, {
      case: 'approvalDecided',
      value: { approval: decided },
    });
    await new EventPublisher(s.h.nc).publish(
      EventTypes.approvalDecided,
      event.eventId,
      encodeEnvelope(event),
      decided.principal!.tenant,
    );

    const done = await eventually(async () => {
      const r = await call(clerk, 'tollgate_call_status', { call_id: callId });
      return r.structuredContent?.status === 'ok' ? r : undefined;
    });
    expect(done.structuredContent).toMatchObject({ status: 'ok', callId });
    const again = await call(clerk, 'tollgate_call_status', { call_id: callId });
    expect(again.structuredContent).toMatchObject({ status: 'ok', callId });
    const after = await s.h.es.get({ index: s.index, id: '12345' });
    expect((after._source as { status: string }).status).toBe('refunded');
    expect(after._version).toBe((before._version ?? 0) + 1);
  });

  it('mcp orders story - every call is recorded with the MCP session as its session', async () => {
    const sessions = new Set<string>();
    const completed = s.h.events.filter(
      (e) => e.type === EventTypes.callCompleted || e.type === EventTypes.callDenied,
    );
    expect(completed.length).toBeGreaterThanOrEqual(5);
    for (const e of completed) {
      const p = e.payload;
      if (p.case === 'callCompleted' || p.case === 'callDenied') sessions.add(p.value.sessionId);
    }
    expect([...sessions].sort()).toEqual(
      [clerkTransport.sessionId!, supportTransport.sessionId!].sort(),
    );
  });
});
