/**
 * What a principal is offered over MCP follows what changes: a tenant without a policy bundle
 * or an agent nobody declared gets an empty list that says what is missing; a policy change
 * and a newly approved saved query are announced as `notifications/tools/list_changed` and the
 * next listing has the new tool; `tollgate_find_tools` is exactly the synthesizer's top-K.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import type { PublishedSavedQuery } from '@tollgate/core';
import { EventPublisher, EventTypes, envelope, publishEnvelope } from '@tollgate/kit';
import { compileBundle } from '@tollgate/policy';
import { operationsOf } from '@tollgate/kinds';
import { BusToolSource } from '../../services/mcp/src/gateway/tool-source.js';
import { NOTICE_META } from '../../services/mcp/src/gateway/gateway.js';
import { ordersAgents, ordersPolicy, ordersResource } from '../fixtures/orders.js';
import { eventually } from '../support/infra.js';
import { startMcpStack } from './support/stack.js';
import type { McpStack } from './support/stack.js';

let s: McpStack;
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  s = await startMcpStack({ ports: { mcp: 23081, as: 23091 } });
});
afterAll(async () => {
  for (const client of open) await client.close().catch(() => undefined);
  await s?.stop();
});

async function v1(token: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'changes', version: '1.0.0' });
  await client.connect(
    new TransportV1(s.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  open.push(client);
  return client;
}

/** A 2026-07-28 client with a `subscriptions/listen` stream, counting list_changed. */
async function listener(token: string): Promise<{ client: ClientV2; changes: () => number }> {
  const client = new ClientV2(
    { name: 'listener', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new TransportV2(s.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  let changed = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changed++;
  });
  const subscription = await client.listen({ toolsListChanged: true });
  open.push(subscription, client);
  return { client, changes: () => changed };
}

const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name).sort();

describe('mcp changes - principals without tools', () => {
  it('mcp changes - a tenant without a policy bundle is offered an empty list that says so', async () => {
    const client = await v1(await s.agentToken('support_bot', { tenant: 'team-z' }));
    const listed = await client.listTools();
    expect(listed.tools).toEqual([]);
    expect(listed._meta?.[NOTICE_META]).toBe(
      'No policy bundle has been published for tenant "team-z"; no tools are offered until one is.',
    );
    const before = s.proxy.requests.length;
    const called = (await client.callTool({
      name: 'es_orders_search',
      arguments: { filters: [{ field: 'id', op: 'eq', value: '12345' }] },
    })) as { isError?: boolean; content: Array<{ text: string }> };
    expect(called.isError).toBe(true);
    expect(called.content[0]!.text).toMatch(/^POLICY_UNAVAILABLE \(denied\): No policy bundle/);
    expect(s.proxy.requests.length).toBe(before);
  });

  it('mcp changes - an agent its tenant does not declare is told to declare it', async () => {
    const client = await v1(await s.agentToken('ghost_bot'));
    const listed = await client.listTools();
    expect(listed.tools).toEqual([]);
    expect(listed._meta?.[NOTICE_META]).toMatch(
      /^Agent "ghost_bot" is not declared in tenant "team-a"; declare it \(kind: Agent\)/,
    );
  });

  it('mcp changes - a declared agent without grants gets only the gateway tools, no notice', async () => {
    const listed = await (await v1(await s.agentToken('intern_bot'))).listTools();
    expect(names(listed.tools)).toEqual(['tollgate_call_status', 'tollgate_find_tools']);
    expect(listed._meta?.[NOTICE_META]).toBeUndefined();
  });
});

describe('mcp changes - announced changes', () => {
  it('mcp changes - a policy change is announced and the next listing has the granted tool', async () => {
    const token = await s.agentToken('intern_bot');
    const intern = await v1(token);
    expect(names((await intern.listTools()).tools)).not.toContain('es_orders_search');
    const { changes } = await listener(token);

    // What the policy service does on an applied Policy: a new bundle, then policy.changed.
    const descriptor = ordersResource({ endpoint: s.proxy.url, index: s.index, readonly: false });
    const base = ordersPolicy({ tenant: 'team-a' });
    const granted = compileBundle({
      tenant: 'team-a',
      version: 2,
      agents: ordersAgents('team-a'),
      policies: [
        {
          ...base,
          spec: {
            grants: [
              ...(base.spec.grants ?? []),
              {
                effect: 'allow',
                principals: { agents: ['intern_bot'] },
                actions: ['es_orders.search'],
              },
            ],
          },
        },
      ],
      resources: [{ descriptor, version: 1, operations: operationsOf(descriptor) }],
    });
    if (!granted.ok) throw new Error(JSON.stringify(granted.problems));
    await s.h.bundlesKv.put('team-a', JSON.stringify(granted.bundle));
    await publishEnvelope(
      new EventPublisher(s.h.nc),
      envelope(EventTypes.policyChanged, 'team-a', {
        case: 'policyChanged',
        value: { tenant: 'team-a', name: 'orders-access', version: 2, bundleHash: 'b2' },
      }),
    );
    await eventually(() => (changes() > 0 ? true : undefined), 10_000);
    const after = await eventually(async () => {
      const listed = names((await intern.listTools()).tools);
      return listed.includes('es_orders_search') ? listed : undefined;
    }, 10_000);
    expect(after).not.toContain('es_orders_write');
    const found = (await intern.callTool({
      name: 'es_orders_search',
      arguments: { filters: [{ field: 'id', op: 'eq', value: '12345' }], fields: ['id'] },
    })) as { isError?: boolean; structuredContent?: { data?: unknown } };
    expect(found.isError ?? false).toBe(false);
    expect(found.structuredContent?.data).toEqual([{ _id: '12345', id: '12345' }]);
  });

  it('mcp changes - an approved saved query is announced and offered as its own tool', async () => {
    const token = await s.agentToken('support_bot');
    const support = await v1(token);
    expect(names((await support.listTools()).tools)).not.toContain('sq_order_lookup');
    const { changes } = await listener(token);

    // What the memory service does on approval: the projection entry, then memory.written.
    const query: PublishedSavedQuery = {
      kind: 'saved_query',
      id: 'cap-order-lookup',
      tenant: 'team-a',
      agent: 'support_bot',
      user: '',
      name: 'order_lookup',
      revision: 1,
      contentHash: '5'.repeat(64),
      description: 'One order by its id.',
      tool: 'es_orders_search',
      arguments: { filters: [{ field: 'id', op: 'eq', value: '0' }], fields: ['id', 'status'] },
      parameters: [
        { name: 'order_id', path: '/filters/0/value', type: 'string', description: 'Order id' },
      ],
    };
    await s.h.putMemory(query);
    await publishEnvelope(
      new EventPublisher(s.h.nc),
      envelope(EventTypes.memoryWritten, 'team-a', {
        case: 'memoryWritten',
        value: { tenant: 'team-a', agent: 'support_bot', id: query.id, version: 1 },
      }),
    );
    await eventually(() => (changes() > 0 ? true : undefined), 10_000);
    await eventually(async () => {
      const listed = names((await support.listTools()).tools);
      return listed.includes('sq_order_lookup') ? true : undefined;
    }, 10_000);
    const result = (await support.callTool({
      name: 'sq_order_lookup',
      arguments: { order_id: '12345' },
    })) as { isError?: boolean; structuredContent?: { data?: unknown } };
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent?.data).toEqual([
      { _id: '12345', id: '12345', status: expect.any(String) },
    ]);
    // Another agent of the tenant is not offered it, and cannot call it.
    const clerk = await v1(await s.agentToken('clerk_bot'));
    expect(names((await clerk.listTools()).tools)).not.toContain('sq_order_lookup');
    const refused = (await clerk.callTool({
      name: 'sq_order_lookup',
      arguments: { order_id: '12345' },
    })) as { isError?: boolean; content: Array<{ text: string }> };
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/^UNKNOWN_TOOL/);
  });
});

describe('mcp changes - tollgate_find_tools', () => {
  it("mcp changes - tollgate_find_tools answers exactly the synthesizer's top-K, best first", async () => {
    // A second resource, so ranking has something to choose between.
    const orders = ordersResource({ endpoint: s.proxy.url, index: s.index, readonly: false });
    const refunds = ordersResource({ endpoint: s.proxy.url, index: s.index, name: 'es_refunds' });
    await s.h.publishResource(refunds, 1);
    await s.h.publishBundle(
      [
        { descriptor: orders, version: 1 },
        { descriptor: refunds, version: 1 },
      ],
      3,
    );
    const token = await s.agentToken('support_bot');
    const support = await v1(token);
    const direct = new BusToolSource(s.h.nc);
    await eventually(async () => {
      const listed = names((await support.listTools()).tools);
      return listed.includes('es_refunds_search') ? true : undefined;
    }, 10_000);
    for (const [task, topK] of [
      ['list the refunds of last week', 1],
      ['find order 12345', 1],
      ['refunds and orders of customer 42', 2],
    ] as const) {
      const found = (await support.callTool({
        name: 'tollgate_find_tools',
        arguments: { task, top_k: topK },
      })) as unknown as { structuredContent: { tools: Array<{ name: string }> } };
      const ranked = await direct.list(token, { task, topK });
      const resources = new Set(ranked.map((t) => t.resource));
      expect(resources.size).toBe(topK);
      expect(found.structuredContent.tools.map((t) => t.name)).toEqual(ranked.map((t) => t.name));
    }
    const first = (task: string) =>
      support
        .callTool({ name: 'tollgate_find_tools', arguments: { task, top_k: 1 } })
        .then(
          (r) =>
            (r as unknown as { structuredContent: { tools: Array<{ name: string }> } })
              .structuredContent.tools,
        );
    expect((await first('list the refunds of last week')).map((t) => t.name)).toContain(
      'es_refunds_search',
    );
    expect((await first('find order 12345 in es_orders')).map((t) => t.name)).toContain(
      'es_orders_search',
    );
  });
});
