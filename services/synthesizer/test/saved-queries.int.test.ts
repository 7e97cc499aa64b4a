import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import { ToolFormat } from '@tollgate/contracts/tools/v1';
import type { ToolDefinition as WireTool } from '@tollgate/contracts/tools/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import {
  TollgateError,
  checkToolFormat,
  compileToolValidator,
  savedQueryInputSchema,
  savedQueryTool,
} from '@tollgate/core';
import type {
  JsonObject,
  Principal,
  PublishedFieldPreference,
  PublishedSavedQuery,
  ToolFormat as FormatName,
} from '@tollgate/core';
import { EVENTS_STREAM, EventTypes, decodeEnvelope, subjects } from '@tollgate/kit';
import { LocalDecider } from '@tollgate/policy';
import type { PolicyBundle } from '@tollgate/policy';
import { encodedSize } from '../src/encoding.js';
import { eventually, names, ok, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';
import { resource } from './support/fixtures.js';
import { TENANT, customersV1, ops, ordersBundle, ordersV1, support } from './support/orders.js';
import { synthesize } from '@tollgate/kinds';

const FORMATS: [FormatName, ToolFormat][] = [
  ['json_schema', ToolFormat.JSON_SCHEMA],
  ['openai', ToolFormat.OPENAI],
  ['anthropic', ToolFormat.ANTHROPIC],
  ['mcp', ToolFormat.MCP],
];

const alice: Principal = { ...ops, user: 'alice' };
const bob: Principal = { ...ops, user: 'bob' };

/** A saved query as the memory service projects its approved revision. */
function savedQuery(
  owner: { agent: string; user?: string; tenant?: string },
  name: string,
  overrides: Partial<PublishedSavedQuery> = {},
): PublishedSavedQuery {
  const user = owner.user ?? '';
  return {
    kind: 'saved_query',
    id: `cap-${owner.agent}-${user || 'all'}-${name}`,
    tenant: owner.tenant ?? TENANT,
    agent: owner.agent,
    user,
    name,
    revision: 1,
    contentHash: `hash-${name}-1`,
    description: 'Paid orders of one user, newest first.',
    tool: 'es_orders_search',
    arguments: {
      filters: [
        { field: 'user_id', op: 'eq', value: 'u-1' },
        { field: 'status', op: 'eq', value: 'paid' },
      ],
      sort: [{ field: 'created_at', order: 'desc' }],
      limit: 10,
    },
    parameters: [
      { name: 'user', path: '/filters/0/value', type: 'string', description: 'The user id' },
    ],
    ...overrides,
  };
}

const paidOnly = {
  arguments: { filters: [{ field: 'status', op: 'eq', value: 'paid' }], limit: 10 },
  parameters: [],
};

// ops_bot: one for every user, alice's own of the same name, carol's own.
const ordersOfUser = savedQuery({ agent: 'ops_bot' }, 'orders_of_user');
const alicesOrdersOfUser = savedQuery({ agent: 'ops_bot', user: 'alice' }, 'orders_of_user', {
  description: "Alice's view: paid orders of one user.",
  revision: 3,
  contentHash: 'hash-alice-3',
});
const carolOnly = savedQuery({ agent: 'ops_bot', user: 'carol' }, 'carol_only');
const bigSpenders = savedQuery({ agent: 'ops_bot', user: 'alice' }, 'big_spenders', {
  description: 'Who spends the most: orders above an amount.',
  arguments: { filters: [{ field: 'amount', op: 'gte', value: 1000 }], limit: 20 },
  parameters: [{ name: 'min_amount', path: '/filters/0/value', type: 'number', description: '' }],
});
// support_bot: usable, on a tool policy forbids it, and one whose fixed part names a field
// support may not see.
const paidOrders = savedQuery({ agent: 'support_bot' }, 'paid_orders', paidOnly);
const paidTotals = savedQuery({ agent: 'support_bot' }, 'paid_totals', {
  ...paidOnly,
  tool: 'es_orders_aggregate',
  arguments: { filters: [{ field: 'status', op: 'eq', value: 'paid' }] },
});
const supportByUser = savedQuery({ agent: 'support_bot' }, 'orders_of_user');
// Another tenant's, for the same agent name and tool.
const foreign = savedQuery({ agent: 'ops_bot', tenant: 'team-b' }, 'foreign_orders', paidOnly);

// A resource whose tool names a saved query's tool name would collide with.
const summaries = resource(TENANT, 'sq_orders', {
  description: 'Quarterly summaries.',
  fields: { quarter: { type: 'keyword', filterable: true, returnable: true } },
  access: { allowedRoles: ['order_ops'] },
});
const collides = savedQuery({ agent: 'ops_bot' }, 'orders_search', paidOnly);

const alicesFields: PublishedFieldPreference = {
  kind: 'preferred_fields',
  id: 'pref-alice-search-fields',
  tenant: TENANT,
  agent: 'ops_bot',
  user: 'alice',
  tool: 'es_orders_search',
  fields: ['amount', 'id', 'internal_note'],
};

let h: Harness;
let policy: PolicyBundle;

beforeAll(async () => {
  h = await startHarness();
  await h.putResource(ordersV1, 1);
  await h.putResource(customersV1, 1);
  await h.putResource(summaries, 1);
  policy = ordersBundle(1, [
    { descriptor: ordersV1, version: 1 },
    { descriptor: customersV1, version: 1 },
    { descriptor: summaries, version: 1 },
  ]);
  await h.putBundle(policy);
  for (const item of [
    ordersOfUser,
    alicesOrdersOfUser,
    carolOnly,
    bigSpenders,
    paidOrders,
    paidTotals,
    supportByUser,
    foreign,
    collides,
    alicesFields,
  ]) {
    await h.putMemory(item);
  }
  const token = await h.token(alice);
  await eventually(async () => {
    const answer = await h.listTools(token, {});
    if (!answer.ok) return undefined;
    const search = answer.value.find((t) => t.name === 'es_orders_search');
    const annotated = JSON.stringify(search?.inputSchema).includes('your usual fields');
    return names(answer.value).includes('sq_big_spenders') && annotated ? true : undefined;
  });
});

afterAll(async () => {
  await h?.close();
});

/** The principal's own synthesized tool, as the policy engine's permission set gives it. */
function baseTool(principal: Principal, name: string) {
  const permissions = LocalDecider.fromBundle(policy).permissionSet(principal, 'es_orders');
  const tool = synthesize({ ...ordersV1, version: 1 }, permissions).find((t) => t.name === name);
  if (tool === undefined) throw new Error(`${name} is not synthesized`);
  return tool;
}

const list = async (principal: Principal, format = ToolFormat.JSON_SCHEMA, task = '') =>
  ok(await h.listTools(await h.token(principal), { format, task }));

const fieldsDescription = (tool: WireTool | undefined): unknown =>
  (((tool?.inputSchema as JsonObject).properties as JsonObject).fields as JsonObject).description;

describe('synthesizer - saved queries as narrower tools', () => {
  it('saved queries - offered right after the base tool, with exactly its parameters and origin', async () => {
    const tools = (await list(alice)).filter((t) => t.resource === 'es_orders');
    expect(names(tools)).toEqual([
      'es_orders_search',
      'sq_big_spenders',
      'sq_orders_of_user',
      'es_orders_get',
      'es_orders_count',
      'es_orders_aggregate',
    ]);
    const base = baseTool(alice, 'es_orders_search');
    const expected = savedQueryTool(compileToolValidator(base), alicesOrdersOfUser);
    if ('unusable' in expected) throw new Error(expected.unusable);
    const search = tools[0] as WireTool;
    const offered = tools[2] as WireTool;
    expect(offered.inputSchema).toEqual(savedQueryInputSchema(alicesOrdersOfUser));
    expect(offered.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { user: { type: 'string', description: 'The user id' } },
      required: ['user'],
      additionalProperties: false,
    });
    expect({
      name: offered.name,
      description: offered.description,
      version: offered.version,
      operation: offered.operation,
    }).toEqual({
      name: expected.name,
      description: expected.description,
      version: expected.version,
      operation: 'search',
    });
    expect(offered.savedQuery).toMatchObject({
      id: alicesOrdersOfUser.id,
      name: 'orders_of_user',
      revision: 3,
      contentHash: 'hash-alice-3',
      baseTool: 'es_orders_search',
      baseVersion: base.version,
    });
    expect(search.version).toBe(base.version);
    expect(search.savedQuery).toBeUndefined();
    for (const key of ['resource', 'resourceVersion', 'resourceKind', 'callSubject'] as const) {
      expect(offered[key], key).toBe(search[key]);
    }
    expect(offered.callSubject).toBe('tollgate.v1.call.elasticsearch.es_orders');
  });

  it('saved queries - every format renders them so they pass the format check (openai strict)', async () => {
    for (const [format, wire] of FORMATS) {
      const tools = await list(alice, wire);
      const offered = tools.filter((t) => t.savedQuery !== undefined);
      expect(names(offered)).toEqual(['sq_big_spenders', 'sq_orders_of_user']);
      for (const tool of tools) {
        expect(tool.format).toBe(wire);
        expect(checkToolFormat(format, tool.rendering), `${format} ${tool.name}`).toEqual([]);
      }
    }
    const openai = (await list(alice, ToolFormat.OPENAI)).find((t) => t.name === 'sq_big_spenders');
    expect(openai?.rendering).toMatchObject({
      type: 'function',
      function: {
        name: 'sq_big_spenders',
        strict: true,
        parameters: {
          type: 'object',
          properties: { min_amount: { type: 'number', description: 'min_amount' } },
          required: ['min_amount'],
          additionalProperties: false,
        },
      },
    });
  });

  it("saved queries - another user's, agent's or tenant's are never offered nor got", async () => {
    for (const principal of [alice, bob, ops]) {
      const offered = names(await list(principal)).filter((n) => n.startsWith('sq_'));
      expect(offered).not.toContain('sq_carol_only');
      expect(offered).not.toContain('sq_paid_orders');
      expect(offered).not.toContain('sq_foreign_orders');
      for (const name of ['sq_carol_only', 'sq_paid_orders', 'sq_foreign_orders']) {
        const answer = await h.getTool(await h.token(principal), { name });
        expect(answer.ok).toBe(false);
        if (answer.ok) continue;
        expect(answer.error).toMatchObject({ code: 'UNKNOWN_TOOL', category: 'fix_arguments' });
        expect(answer.error.message).toBe(
          `No tool named "${name}" is offered to agent "ops_bot" in ${TENANT}/prod.`,
        );
      }
    }
    expect(names(await list({ ...ops, user: 'carol' }))).toContain('sq_carol_only');
  });

  it("saved queries - an agent's are offered to each of its users; a user's own of the same name shadows it", async () => {
    const ofUser = (tools: WireTool[]) => tools.find((t) => t.name === 'sq_orders_of_user');
    const forBob = ofUser(await list(bob));
    const forAgent = ofUser(await list(ops));
    const forAlice = ofUser(await list(alice));
    expect(forBob?.savedQuery?.id).toBe(ordersOfUser.id);
    expect(forBob?.description).toMatch(/^Paid orders of one user, newest first\./);
    expect(forAgent?.version).toBe(forBob?.version);
    expect(forAlice?.savedQuery?.id).toBe(alicesOrdersOfUser.id);
    expect(forAlice?.description).toMatch(/^Alice's view/);
    expect(names(await list(alice)).filter((n) => n === 'sq_orders_of_user')).toHaveLength(1);
    expect(names(await list(bob))).not.toContain('sq_big_spenders');
  });

  it('saved queries - one on a tool policy does not give the principal is not offered', async () => {
    const tools = await list(support);
    expect(names(tools).filter((n) => n.startsWith('es_orders') || n.startsWith('sq_'))).toEqual([
      'es_orders_search',
      'sq_paid_orders',
      'es_orders_get',
      'es_orders_count',
    ]);
    const answer = await h.getTool(await h.token(support), { name: 'sq_paid_totals' });
    expect(answer.ok ? 'offered' : answer.error.code).toBe('UNKNOWN_TOOL');
  });

  it('saved queries - one whose fixed part no longer fits (a field the principal cannot see) is left out, warned once', async () => {
    for (let i = 0; i < 3; i++) {
      expect(names(await list(support))).not.toContain('sq_orders_of_user');
    }
    const answer = await h.getTool(await h.token(support), { name: 'sq_orders_of_user' });
    expect(answer.ok ? 'offered' : answer.error.code).toBe('UNKNOWN_TOOL');
    const warned = h.lines.filter(
      (l) => l.msg === 'saved query not offered' && l.agent === 'support_bot',
    );
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({
      level: 'warn',
      tenant: TENANT,
      savedQuery: 'orders_of_user',
      id: supportByUser.id,
      revision: 1,
      baseTool: 'es_orders_search',
      baseVersion: baseTool(support, 'es_orders_search').version,
    });
    expect(warned[0]?.reason).toBe(
      'its fixed arguments no longer fit es_orders_search: filters[0].field: expected one of amount, created_at, id, status; found "user_id"',
    );
  });

  it("saved queries - one whose tool name is a resource's tool is left out; the resource's tool keeps the name", async () => {
    const tools = await list(bob);
    const named = tools.filter((t) => t.name === 'sq_orders_search');
    expect(named.map((t) => [t.resource, t.savedQuery])).toEqual([['sq_orders', undefined]]);
    const got = ok(await h.getTool(await h.token(bob), { name: 'sq_orders_search' }));
    expect([got.resource, got.savedQuery]).toEqual(['sq_orders', undefined]);
    const warned = h.lines.filter(
      (l) => l.msg === 'saved query not offered' && l.savedQuery === 'orders_search',
    );
    expect(warned.map((l) => l.reason)).toEqual([
      "its tool name sq_orders_search is a resource's tool in prod",
    ]);
  });

  it('saved queries - removed from the bucket, gone from the next listing without a restart', async () => {
    const recent = savedQuery({ agent: 'ops_bot' }, 'recent_orders', paidOnly);
    const token = await h.token(bob);
    await h.putMemory(recent);
    await eventually(async () => {
      const answer = await h.listTools(token, {});
      return answer.ok && names(answer.value).includes('sq_recent_orders') ? true : undefined;
    });
    expect(ok(await h.getTool(token, { name: 'sq_recent_orders' })).savedQuery?.id).toBe(recent.id);
    await h.deleteMemory(recent);
    await eventually(async () => {
      const answer = await h.listTools(token, {});
      return answer.ok && !names(answer.value).includes('sq_recent_orders') ? true : undefined;
    });
    const answer = await h.getTool(token, { name: 'sq_recent_orders' });
    expect(answer.ok ? 'offered' : answer.error.code).toBe('UNKNOWN_TOOL');
  });

  it('saved queries - GetTool resolves sq_ names as listed, on both paths', async () => {
    const listed = (await list(alice, ToolFormat.MCP)).find((t) => t.name === 'sq_orders_of_user');
    const bus = ok(
      await h.getTool(await h.token(alice), { name: 'sq_orders_of_user', format: ToolFormat.MCP }),
    );
    const rpc = await h.client.getTool(
      { name: 'sq_orders_of_user', format: ToolFormat.MCP },
      await h.as(alice),
    );
    expect(bus.version).toBe(listed?.version);
    expect(bus.rendering).toEqual(listed?.rendering);
    expect(bus.savedQuery?.id).toBe(alicesOrdersOfUser.id);
    expect(rpc.tool?.version).toBe(bus.version);
    expect(rpc.tool?.savedQuery?.baseTool).toBe('es_orders_search');
    expect(checkToolFormat('mcp', bus.rendering)).toEqual([]);
    const forBob = ok(await h.getTool(await h.token(bob), { name: 'sq_orders_of_user' }));
    expect(forBob.savedQuery?.id).toBe(ordersOfUser.id);
  });

  it('saved queries - a task matching a saved query brings its resource though the resource text does not match', async () => {
    const tools = await list(alice, ToolFormat.JSON_SCHEMA, 'big spenders');
    expect(names(tools)).toContain('sq_big_spenders');
    expect(new Set(tools.map((t) => t.resource))).toEqual(new Set(['es_orders']));
    expect(await list(bob, ToolFormat.JSON_SCHEMA, 'big spenders')).toEqual([]);
  });
});

describe('synthesizer - saved queries in what a listing records and may carry', () => {
  it('tools.listed - the saved-query tools are recorded with their versions', async () => {
    const consumer = await jetstream(h.nc).consumers.get(EVENTS_STREAM, {
      filter_subjects: subjects.eventsOf(EventTypes.toolsListed),
      deliver_policy: DeliverPolicy.New,
    });
    const messages = await consumer.consume();
    const seen: EventEnvelope[] = [];
    const done = (async () => {
      for await (const message of messages) seen.push(decodeEnvelope(message.data));
    })();
    try {
      const sessionId = `s-${Date.now()}`;
      const tools = ok(
        await h.listTools(await h.token(alice), { task: 'orders of a user', sessionId }),
      );
      expect(names(tools)).toContain('sq_orders_of_user');
      const event = await eventually(() =>
        seen.find(
          (e) => e.payload.case === 'toolsListed' && e.payload.value.sessionId === sessionId,
        ),
      );
      if (event.payload.case !== 'toolsListed') throw new Error('unexpected payload');
      expect(
        event.payload.value.tools.map((t) => [t.name, t.version, t.resource, t.resourceVersion]),
      ).toEqual(tools.map((t) => [t.name, t.version, t.resource, t.resourceVersion]));
    } finally {
      await messages.close();
      await done;
    }
  });

  it('reply size - the saved-query tools count towards what a reply may carry', async () => {
    const synthesizer = h.running.synthesizer;
    const input = { task: '', format: 'json_schema' as const, topK: 0, sessionId: '' };
    const withQueries = await synthesizer.listTools({ ...input, principal: alice });
    const narrowed = withQueries.filter((t) => t.savedQuery !== undefined);
    expect(narrowed.length).toBe(2);
    const bytes = encodedSize(withQueries) - 1;
    const refused = await synthesizer
      .listTools({ ...input, principal: alice, replyLimit: { bytes, what: 'a test reply' } })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(TollgateError);
    expect((refused as TollgateError).code).toBe('INVALID_ARGUMENT');
    // The same limit holds what the base tools alone need.
    const base = withQueries.filter((t) => t.savedQuery === undefined);
    expect(encodedSize(base)).toBeLessThan(bytes);
  });
});

describe('synthesizer - preferred fields as the default of fields', () => {
  it("preferred fields - document the base tool's default for that principal only, version unchanged", async () => {
    const expected =
      'Fields to return; omit or null for your usual fields (amount, id). Name fields to get others.';
    for (const [format, wire] of FORMATS) {
      const forAlice = (await list(alice, wire)).find((t) => t.name === 'es_orders_search');
      const forBob = (await list(bob, wire)).find((t) => t.name === 'es_orders_search');
      expect(fieldsDescription(forAlice), format).toBe(expected);
      expect(JSON.stringify(forAlice?.rendering)).toContain(expected);
      expect(checkToolFormat(format, forAlice?.rendering), format).toEqual([]);
      expect(fieldsDescription(forBob)).toBe('Fields to return; null for all.');
      expect(JSON.stringify(forBob?.rendering)).not.toContain('your usual fields');
      expect(forAlice?.version).toBe(forBob?.version);
      expect(forAlice?.version).toBe(baseTool(alice, 'es_orders_search').version);
    }
    const got = ok(await h.getTool(await h.token(alice), { name: 'es_orders_search' }));
    expect(fieldsDescription(got)).toBe(expected);
    const others = (await list(alice)).filter(
      (t) => t.resource === 'es_orders' && t.name !== 'es_orders_search',
    );
    expect(JSON.stringify(others)).not.toContain('your usual fields');
    // Bob, listed after Alice, still gets the shared rendering untouched.
    expect(fieldsDescription((await list(bob)).find((t) => t.name === 'es_orders_search'))).toBe(
      'Fields to return; null for all.',
    );
  });
});
