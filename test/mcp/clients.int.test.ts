/**
 * Real MCP clients against the front end on a real stack: both SDK generations, both protocol
 * eras, two agents that see different fields, tokens from a real authorization server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { EventTypes, subjects } from '@tollgate/kit';
import { eventually } from '../support/infra.js';
import { CLIENTS } from './support/oidc.js';
import { CLIENT_KINDS, connectClient } from './support/clients.js';
import type { McpClient } from './support/clients.js';
import { startMcpStack } from './support/stack.js';
import type { McpStack } from './support/stack.js';

let s: McpStack;
const open: McpClient[] = [];

beforeAll(async () => {
  s = await startMcpStack({ pageSize: 3 });
});
afterAll(async () => {
  for (const client of open) await client.close().catch(() => undefined);
  await s?.stop();
});

async function client(kind: (typeof CLIENT_KINDS)[number], token: string): Promise<McpClient> {
  const c = await connectClient(kind, s.url, token);
  open.push(c);
  return c;
}

function fieldsEnum(tool: { inputSchema: Record<string, unknown> }): string[] {
  const props = tool.inputSchema.properties as Record<
    string,
    { anyOf?: Array<{ items?: { enum?: string[] } }> }
  >;
  const fields = props.fields!;
  const items =
    fields.anyOf?.find((b) => b.items)?.items ?? (fields as { items?: { enum?: string[] } }).items;
  return items?.enum ?? [];
}

describe.each(CLIENT_KINDS)('mcp clients - %s', (kind) => {
  it(`mcp clients - ${kind} lists each agent's own tools, with annotations and output schema`, async () => {
    const support = await client(kind, await s.as.clientToken(CLIENTS.support, s.url.href));
    const clerk = await client(kind, await s.as.clientToken(CLIENTS.clerk, s.url.href));
    if (kind === 'v2-modern') expect(support.protocolVersion()).toBe('2026-07-28');
    const supportTools = await support.listTools();
    const clerkTools = await clerk.listTools();
    const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name).sort();
    expect(names(supportTools)).toEqual(
      expect.arrayContaining(['es_orders_search', 'es_orders_get', 'tollgate_call_status']),
    );
    expect(names(supportTools)).not.toContain('es_orders_write');
    expect(names(clerkTools)).toContain('es_orders_write');
    const supportSearch = supportTools.find((t) => t.name === 'es_orders_search')!;
    expect(supportSearch.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(supportSearch.outputSchema).toMatchObject({
      type: 'object',
      required: ['status', 'callId'],
    });
    expect(clerkTools.find((t) => t.name === 'es_orders_write')!.annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: true,
    });
    // The two agents see different fields: support never sees customer e-mail.
    expect(fieldsEnum(supportSearch)).not.toContain('customer.email');
    expect(supportSearch.inputSchema.additionalProperties).toBe(false);
  });

  it(`mcp clients - ${kind} calls a tool and gets the envelope in structuredContent and text`, async () => {
    const support = await client(kind, await s.as.clientToken(CLIENTS.support, s.url.href));
    const result = await support.callTool('es_orders_search', {
      filters: [{ field: 'id', op: 'eq', value: '12345' }],
    });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ status: 'ok' });
    const data = result.structuredContent!.data as Array<Record<string, unknown>>;
    expect(data.map((d) => d.id)).toEqual(['12345']);
    expect(JSON.parse(result.content[0]!.text!).data[0].id).toBe('12345');
  });
});

describe('mcp clients - a person signs in (authorization code with PKCE)', () => {
  it('mcp clients - the token stands for the mapped agent acting for that person', async () => {
    const token = await s.as.userToken(CLIENTS.desktop, 'alice', s.url.href);
    const desktop = await client('v2-legacy', token);
    expect((await desktop.listTools()).map((t) => t.name)).toContain('es_orders_write');
    const result = await desktop.callTool('es_orders_get', { id: '12345' });
    expect(result.structuredContent).toMatchObject({ status: 'ok' });
    const callId = result.structuredContent!.callId as string;
    const event = await s.h.eventOf(callId, 'call.completed');
    if (event.payload.case !== 'callCompleted') throw new Error('no call.completed');
    expect(event.payload.value.principal).toMatchObject({
      tenant: 'team-a',
      agent: 'clerk_bot',
      user: 'alice',
    });
  });
});

describe('mcp clients - paging', () => {
  it('mcp clients - tools/list pages with cursors; a made-up cursor is refused', async () => {
    const token = await s.as.clientToken(CLIENTS.support, s.url.href);
    const raw = new ClientV1({ name: 'paging', version: '1.0.0' });
    await raw.connect(
      new TransportV1(s.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    try {
      const first = await raw.listTools();
      expect(first.tools).toHaveLength(3);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await raw.listTools({ cursor: first.nextCursor });
      expect(second.tools.map((t) => t.name)).not.toContain(first.tools[0]!.name);
      await expect(raw.listTools({ cursor: 'bm90LWEtY3Vyc29y' })).rejects.toThrow(/cursor/);
    } finally {
      await raw.close();
    }
  });
});

describe('mcp clients - changes', () => {
  it('mcp clients - a 2026-07-28 subscription hears tools/list_changed when a resource changes', async () => {
    const token = await s.as.clientToken(CLIENTS.support, s.url.href);
    const modern = new ClientV2(
      { name: 'listener', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(
      new TransportV2(s.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    let changed = 0;
    modern.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++;
    });
    const subscription = await modern.listen({ toolsListChanged: true });
    try {
      expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
      s.h.nc.publish(subjects.event(EventTypes.resourceChanged, 'team-a'), new Uint8Array());
      await eventually(() => (changed > 0 ? true : undefined), 10_000);
      expect(changed).toBeGreaterThan(0);
    } finally {
      await subscription.close();
      await modern.close();
    }
  });
});

describe('mcp clients - version negotiation', () => {
  it('mcp clients - a negotiating client probes server/discover and settles on 2026-07-28', async () => {
    const token = await s.as.clientToken(CLIENTS.support, s.url.href);
    const auto = new ClientV2(
      { name: 'negotiating', version: '2.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await auto.connect(
      new TransportV2(s.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    try {
      expect(auto.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(auto.getServerVersion()).toMatchObject({ name: 'tollgate' });
      expect((await auto.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await auto.close();
    }
  });

  it('mcp clients - a 2025 client asking for an unknown version is answered with one the server speaks', async () => {
    const token = await s.as.clientToken(CLIENTS.support, s.url.href);
    const res = await fetch(s.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2024-01-01',
          capabilities: {},
          clientInfo: { name: 'old', version: '0' },
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toMatch(/^mcp-[0-9a-f]{32}\.[0-9a-f]{32}$/);
    const text = await res.text();
    const body = JSON.parse(text.startsWith('{') ? text : text.replace(/^[\s\S]*?data: /, '')) as {
      result: { protocolVersion: string; capabilities: { tools?: unknown } };
    };
    expect(['2025-11-25', '2025-06-18']).toContain(body.result.protocolVersion);
    expect(body.result.capabilities.tools).toEqual({ listChanged: true });
  });
});
