/**
 * Thirty-two MCP clients at once, each a different principal (four agents × eight users, each
 * user with a saved query of their own): every client is listed exactly what the synthesizer
 * offers its principal — its own saved query and nobody else's — and every result and audit
 * event of its calls is its own, in its own session. What an attacker would hope for under
 * load is a listing cached under the wrong key or a token minted for the neighbour.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallStatus } from '@tollgate/contracts/call/v1';
import type { PublishedSavedQuery } from '@tollgate/core';
import { BusToolSource } from '../../services/mcp/src/gateway/tool-source.js';
import { eventually } from '../support/infra.js';
import { startMcpStack } from './support/stack.js';
import type { McpStack } from './support/stack.js';

let s: McpStack;

const AGENTS = ['support_bot', 'clerk_bot', 'ops_bot', 'intern_bot'] as const;
const USERS = Array.from({ length: 8 }, (_, i) => `user${i}`);
const PRINCIPALS = AGENTS.flatMap((agent) => USERS.map((user) => ({ agent, user })));
/** Order ids of the stack's index (every 500th from 10000, and 12345). */
const ORDER_IDS = Array.from({ length: 22 }, (_, i) => String(10_000 + i * 500));

function savedQueryOf(agent: string, user: string): PublishedSavedQuery {
  return {
    kind: 'saved_query',
    id: `cap-${agent}-${user}`,
    tenant: 'team-a',
    agent,
    user,
    name: `orders_of_${user}_${agent.replace('_bot', '')}`,
    revision: 1,
    contentHash: 'c'.repeat(64),
    description: `Orders ${user} looks at.`,
    tool: 'es_orders_search',
    arguments: { filters: [{ field: 'id', op: 'eq', value: '0' }], fields: ['id'] },
    parameters: [{ name: 'order_id', path: '/filters/0/value', type: 'string', description: 'Id' }],
  };
}

beforeAll(async () => {
  s = await startMcpStack({ ports: { mcp: 23082, as: 23092 } });
  for (const { agent, user } of PRINCIPALS) await s.h.putMemory(savedQueryOf(agent, user));
});
afterAll(async () => {
  await s?.stop();
});

type Result = {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
  structuredContent?: { callId?: string; data?: Array<Record<string, unknown>> };
};

describe('mcp isolation', () => {
  it('mcp isolation - 32 concurrent principals each see only their own tools and results', async () => {
    const direct = new BusToolSource(s.h.nc);
    // What the synthesizer offers each principal, asked one by one (the oracle).
    const expected = new Map<string, string[]>();
    for (const { agent, user } of PRINCIPALS) {
      const token = await s.h.token(agent, { user });
      const tools = await eventually(async () => {
        const listed = await direct.list(token, {});
        // The synthesizer has loaded the saved queries once an offered principal sees its own.
        return agent === 'intern_bot' || listed.some((t) => t.name.startsWith('sq_'))
          ? listed
          : undefined;
      }, 10_000);
      expected.set(`${agent}/${user}`, tools.map((t) => t.name).sort());
    }
    expect(new Set([...expected.values()].map((names) => names.join(','))).size).toBe(25);

    const runs = await Promise.all(
      PRINCIPALS.map(async ({ agent, user }, i) => {
        const client = new Client({ name: `isolation-${i}`, version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(s.url, {
          requestInit: {
            headers: { authorization: `Bearer ${await s.h.token(agent, { user })}` },
          },
        });
        await client.connect(transport);
        try {
          const listed = (await client.listTools()).tools;
          const id = ORDER_IDS[i % ORDER_IDS.length]!;
          const search = (await client.callTool({
            name: 'es_orders_search',
            arguments: { filters: [{ field: 'id', op: 'eq', value: id }] },
          })) as Result;
          const mine = listed.find((t) => t.name.startsWith('sq_'));
          const saved = mine
            ? ((await client.callTool({
                name: mine.name,
                arguments: { order_id: id },
              })) as Result)
            : undefined;
          return { agent, user, id, listed, search, saved, session: transport.sessionId! };
        } finally {
          await client.close();
        }
      }),
    );

    for (const run of runs) {
      const who = `${run.agent}/${run.user}`;
      const names = run.listed.map((t) => t.name).sort();
      expect(names, who).toEqual(
        [
          ...expected.get(who)!.filter((n) => n.startsWith('es_') || n.startsWith('sq_')),
          'tollgate_call_status',
          'tollgate_find_tools',
        ].sort(),
      );
      const sq = names.filter((n) => n.startsWith('sq_'));
      if (run.agent === 'intern_bot') {
        expect(sq, who).toEqual([]);
        expect(run.search.isError, who).toBe(true);
        continue;
      }
      expect(sq, who).toEqual([`sq_orders_of_${run.user}_${run.agent.replace('_bot', '')}`]);
      // The rows are the ones asked for, with only the fields this agent may see.
      const tool = run.listed.find((t) => t.name === 'es_orders_search')!;
      const visible = visibleFields(tool.inputSchema);
      const rows = run.search.structuredContent?.data ?? [];
      expect(
        rows.map((r) => r.id),
        who,
      ).toEqual([run.id]);
      for (const key of leafPaths(rows[0]!).filter((k) => k !== '_id'))
        expect(visible, `${who} ${key}`).toContain(key);
      expect(run.saved?.structuredContent?.data, who).toEqual([{ _id: run.id, id: run.id }]);
    }

    // Every call is in the trail as its own principal, in its own MCP session.
    const sessions = new Set(runs.map((r) => r.session));
    expect(sessions.size).toBe(32);
    for (const run of runs) {
      const ids = [run.search, run.saved]
        .map((r) => r?.structuredContent?.callId)
        .filter((id): id is string => typeof id === 'string' && id !== '');
      expect(ids.length, `${run.agent}/${run.user}`).toBe(run.agent === 'intern_bot' ? 0 : 2);
      for (const callId of ids) {
        const event = await eventually(() =>
          s.h.events.find(
            (e) => e.payload.case === 'callCompleted' && e.payload.value.callId === callId,
          ),
        );
        if (event.payload.case !== 'callCompleted') throw new Error('not a call');
        const completed = event.payload.value;
        expect(completed.principal).toMatchObject({
          tenant: 'team-a',
          agent: run.agent,
          user: run.user,
        });
        expect(completed.sessionId).toBe(run.session);
        expect(completed.status).toBe(CallStatus.OK);
      }
    }
  });
});

function visibleFields(schema: Record<string, unknown>): string[] {
  type Items = { items?: { enum?: string[] } };
  const fields = (schema.properties as Record<string, Items & { anyOf?: Items[] }>).fields;
  const items = fields?.anyOf?.find((b) => b.items)?.items ?? fields?.items;
  return items?.enum ?? [];
}

/** `customer.name` for `{ customer: { name } }`: the row's fields as the schema names them. */
function leafPaths(row: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(row).flatMap(([key, value]) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? leafPaths(value as Record<string, unknown>, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}
