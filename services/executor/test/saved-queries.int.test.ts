import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { DecisionEffect } from '@tollgate/contracts/policy/v1';
import { narrowToDeclared, savedQueryTool } from '@tollgate/core';
import type { PublishedFieldPreference, PublishedSavedQuery } from '@tollgate/core';
import { LocalDecider, compileBundle } from '@tollgate/policy';
import { EventTypes } from '@tollgate/kit';
import {
  ordersAgents,
  ordersPolicy,
  ordersResource,
  seedOrders,
} from '../../../test/fixtures/orders.js';
import { eventually } from '../../../test/support/infra.js';
import { startEsProxy } from '../../../test/security/support/es-proxy.js';
import type { EsProxy } from '../../../test/security/support/es-proxy.js';
import { ES_URL, ORDERS_INDEX, startHarness } from './support/harness.js';
import type { CallOptions, Harness, Outcome } from './support/harness.js';
import { operationsOf, validatorCache } from '@tollgate/kinds';

let h: Harness;
let proxy: EsProxy;

/** A saved query of support_bot's user alice (team-a) unless overridden. */
function savedQuery(overrides: Partial<PublishedSavedQuery>): PublishedSavedQuery {
  return {
    kind: 'saved_query',
    id: `cap-${overrides.name ?? 'x'}`,
    tenant: 'team-a',
    agent: 'support_bot',
    user: 'alice',
    name: 'orders_in_status',
    revision: 1,
    contentHash: 'a'.repeat(64),
    description: 'Latest orders in one status.',
    tool: 'es_orders_search',
    arguments: {},
    parameters: [],
    ...overrides,
  };
}

const inStatus = savedQuery({
  name: 'orders_in_status',
  revision: 3,
  contentHash: '1'.repeat(64),
  arguments: {
    filters: [{ field: 'status', op: 'eq', value: 'paid' }],
    fields: ['id', 'status', 'amount'],
    sort: [{ field: 'created_at', order: 'desc' }],
    limit: 5,
  },
  parameters: [
    { name: 'status', path: '/filters/0/value', type: 'string', description: 'Order status' },
    { name: 'how_many', path: '/limit', type: 'integer', description: 'Rows wanted' },
  ],
});
/** No `fields`: the caller's preferred fields apply. */
const byId = savedQuery({
  name: 'order_by_id',
  contentHash: '2'.repeat(64),
  arguments: { filters: [{ field: 'id', op: 'eq', value: '0' }] },
  parameters: [{ name: 'order_id', path: '/filters/0/value', type: 'string', description: 'Id' }],
});
/** Its fixed part asks for a field support_bot may not see. */
const emails = savedQuery({
  name: 'customer_emails',
  contentHash: '3'.repeat(64),
  arguments: { fields: ['id', 'customer.email'], limit: 3 },
});
/** Agent-wide, of an agent without any role that reaches orders. */
const internOrders = savedQuery({
  agent: 'intern_bot',
  user: '',
  name: 'orders_in_status',
  contentHash: '4'.repeat(64),
  arguments: { filters: [{ field: 'status', op: 'eq', value: 'paid' }], limit: 2 },
  parameters: [{ name: 'status', path: '/filters/0/value', type: 'string', description: 'S' }],
});
const preferred: PublishedFieldPreference = {
  kind: 'preferred_fields',
  id: 'pref-1',
  tenant: 'team-a',
  agent: 'support_bot',
  user: 'alice',
  tool: 'es_orders_search',
  // customer.email is not visible to support_bot: never defaulted in.
  fields: ['status', 'customer.email', 'id'],
};

const as = async (
  agent: string,
  user?: string,
  tenant = 'team-a',
): Promise<Pick<CallOptions, 'token'>> => ({
  token: await h.token(agent, { tenant, ...(user ? { user } : {}) }),
});
const onOrders: CallOptions = { subjectResource: 'es_orders' };

async function callAs(
  tool: string,
  args: Record<string, unknown>,
  who: Pick<CallOptions, 'token'>,
  options: CallOptions = {},
): Promise<Outcome> {
  return h.call(tool, args as never, { ...onOrders, ...who, ...options });
}

/** The version the synthesizer computes for a saved query offered to support_bot. */
function offeredVersion(query: PublishedSavedQuery, who: { user: string }): string {
  const descriptor = ordersResource({ endpoint: proxy.url, index: ORDERS_INDEX });
  const compiled = compileBundle({
    tenant: 'team-a',
    version: 1,
    agents: ordersAgents('team-a'),
    policies: [ordersPolicy({ tenant: 'team-a' })],
    resources: [{ descriptor, version: 1, operations: operationsOf(descriptor) }],
  });
  if (!compiled.ok) throw new Error('bundle');
  const decider = new LocalDecider();
  decider.load(compiled.bundle);
  const principal = { tenant: 'team-a', agent: 'support_bot', environment: 'prod', ...who };
  const permissions = narrowToDeclared(decider.permissionSet(principal, 'es_orders'), descriptor);
  const base = validatorCache()
    .toolSet({ ...descriptor, version: 1 }, permissions)
    .validator('es_orders_search');
  const made = savedQueryTool(base!, query);
  if ('unusable' in made) throw new Error(made.unusable);
  return made.version;
}

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  proxy = await startEsProxy(ES_URL);
  await seedOrders(h.es, ORDERS_INDEX);
  const descriptor = ordersResource({ endpoint: proxy.url, index: ORDERS_INDEX });
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  // The same resource in another tenant, so a team-b caller reaches the saved-query lookup.
  const other = ordersResource({ endpoint: proxy.url, index: ORDERS_INDEX, tenant: 'team-b' });
  await h.publishResource(other, 1);
  await h.publishBundle([{ descriptor: other, version: 1 }], 1);
  // Entries present before the executor starts are loaded at boot.
  for (const item of [inStatus, byId, emails, internOrders, preferred]) await h.putMemory(item);
  h.running = await h.startExecutor();
});
afterAll(async () => {
  await h?.stop();
  await proxy?.close();
});

describe('saved queries - sq_<name> tools run as their base tool', () => {
  it('saved queries - a saved-query call returns the same rows as the equivalent base call', async () => {
    const alice = await as('support_bot', 'alice');
    const viaSaved = await callAs('sq_orders_in_status', { status: 'shipped', how_many: 4 }, alice);
    expect(viaSaved.error).toBeUndefined();
    expect(viaSaved.status).toBe('ok');
    const direct = await callAs(
      'es_orders_search',
      {
        filters: [{ field: 'status', op: 'eq', value: 'shipped' }],
        fields: ['id', 'status', 'amount'],
        sort: [{ field: 'created_at', order: 'desc' }],
        limit: 4,
      },
      alice,
    );
    expect(direct.status).toBe('ok');
    expect(viaSaved.data).toEqual(direct.data);
    const rows = viaSaved.data as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r['status'] === 'shipped')).toBe(true);
    // The agent is told about the tool it called; the saved-query tool has its own version.
    expect(viaSaved.meta).toMatchObject({ tool: 'sq_orders_in_status', returned: 4 });
    expect(direct.meta).toMatchObject({ tool: 'es_orders_search' });
    expect(viaSaved.meta?.toolVersion).toMatch(/^[0-9a-f]{64}$/);
    expect(viaSaved.meta?.toolVersion).not.toBe(direct.meta?.toolVersion);
  });

  it('saved queries - parameters are validated, errors naming the parameter', async () => {
    const alice = await as('support_bot', 'alice');
    const wrongType = await callAs('sq_orders_in_status', { status: 5, how_many: 2 }, alice);
    expect(wrongType.error).toMatchObject({ code: 'ARGUMENTS_INVALID', category: 'fix_arguments' });
    expect(wrongType.error?.details.map((d) => d['path'])).toEqual(['status']);
    const missing = await callAs('sq_orders_in_status', { how_many: 2 }, alice);
    expect(missing.error?.code).toBe('ARGUMENTS_INVALID');
    expect(JSON.stringify(missing.error?.details)).toContain('status');
    const extra = await callAs(
      'sq_orders_in_status',
      { status: 'paid', how_many: 2, filters: [] },
      alice,
    );
    expect(extra.error?.code).toBe('ARGUMENTS_INVALID');
    expect(JSON.stringify(extra.error?.details)).toContain('filters');
    // Valid as a parameter, refused by the base tool (limit cap 100): still told as the parameter.
    const tooMany = await callAs('sq_orders_in_status', { status: 'paid', how_many: 1000 }, alice);
    expect(tooMany.error?.code).toBe('ARGUMENTS_INVALID');
    expect(tooMany.error?.details.map((d) => d['path'])).toEqual(['how_many']);
    expect(tooMany.error?.message).toContain('sq_orders_in_status');
  });

  it('saved queries - another user, agent or tenant cannot run it, told in the same words', async () => {
    const refusals = [
      await callAs(
        'sq_orders_in_status',
        { status: 'paid', how_many: 1 },
        await as('support_bot', 'bob'),
      ),
      await callAs('sq_orders_in_status', { status: 'paid', how_many: 1 }, await as('support_bot')),
      await callAs(
        'sq_orders_in_status',
        { status: 'paid', how_many: 1 },
        await as('ops_bot', 'alice'),
      ),
      await callAs(
        'sq_orders_in_status',
        { status: 'paid', how_many: 1 },
        await as('support_bot', 'alice', 'team-b'),
      ),
    ];
    const nobodyHasIt = await callAs('sq_never_saved', {}, await as('support_bot', 'alice'));
    for (const refused of [...refusals, nobodyHasIt]) {
      expect(refused.status).toBe('error');
      expect(refused.error).toMatchObject({ code: 'UNKNOWN_TOOL', category: 'fix_arguments' });
      expect(refused.error?.message).toMatch(/list tools again/);
    }
    const words = (o: Outcome): string | undefined =>
      o.error?.message.replace(/"sq_[a-z_]+"/, '"<tool>"');
    for (const refused of refusals) expect(words(refused)).toBe(words(nobodyHasIt));
  });

  it('saved queries - removing the entry makes the next call UNKNOWN_TOOL (hot)', async () => {
    const alice = await as('support_bot', 'alice');
    const hot = savedQuery({
      name: 'hot_query',
      contentHash: '5'.repeat(64),
      arguments: { filters: [{ field: 'id', op: 'eq', value: '12345' }], fields: ['id'] },
    });
    await h.putMemory(hot);
    const ran = await eventually(async () => {
      const answer = await callAs('sq_hot_query', {}, alice);
      return answer.status === 'ok' ? answer : undefined;
    });
    expect(ran.data).toEqual([{ _id: '12345', id: '12345' }]);
    await h.deleteMemory(hot);
    const gone = await eventually(async () => {
      const answer = await callAs('sq_hot_query', {}, alice);
      return answer.error?.code === 'UNKNOWN_TOOL' ? answer : undefined;
    });
    expect(gone.error?.message).toMatch(/list tools again/);
  });

  it('saved queries - a fixed part naming a field the caller may not see is refused, ES receives nothing', async () => {
    const before = proxy.requests.length;
    const refused = await callAs('sq_customer_emails', {}, await as('support_bot', 'alice'));
    expect(refused.status).toBe('error');
    expect(refused.error).toMatchObject({ code: 'UNKNOWN_TOOL', category: 'fix_arguments' });
    expect(refused.error?.message).toMatch(/no longer fits/);
    expect(refused.error?.message).toMatch(/list tools again/);
    expect(refused.error?.details[0]).toMatchObject({ path: 'tool', found: 'sq_customer_emails' });
    expect(refused.error?.details[0]?.['message']).toMatch(/fields\[1\].*customer\.email/);
    expect(proxy.requests.length).toBe(before);
    const completed = await h.eventOf(refused.callId, EventTypes.callCompleted);
    expect(
      completed.payload.case === 'callCompleted' && completed.payload.value.savedQuery,
    ).toMatchObject({
      name: 'customer_emails',
      toolVersion: '',
    });
  });

  it('saved queries - policy still decides on the base operation (POLICY_DENIED, audited)', async () => {
    const before = proxy.requests.length;
    const denied = await callAs(
      'sq_orders_in_status',
      { status: 'cancelled' },
      await as('intern_bot', 'alice'),
    );
    expect(denied.error).toMatchObject({ code: 'POLICY_DENIED', category: 'denied' });
    expect(proxy.requests.length).toBe(before);
    const event = await h.eventOf(denied.callId, EventTypes.callDenied);
    if (event.payload.case !== 'callDenied') throw new Error('not call.denied');
    const value = event.payload.value;
    expect(value.tool).toBe('es_orders_search');
    expect(value.arguments).toEqual({
      filters: [{ field: 'status', op: 'eq', value: 'cancelled' }],
      limit: 2,
    });
    expect(value.savedQuery).toMatchObject({
      id: internOrders.id,
      name: 'orders_in_status',
      tool: 'sq_orders_in_status',
    });
    expect(value.decision?.effect).toBe(DecisionEffect.DENY);
  });

  it('saved queries - a stale tool_version is UNKNOWN_TOOL, the current one runs', async () => {
    const alice = await as('support_bot', 'alice');
    const args = { status: 'paid', how_many: 1 };
    const current = await callAs('sq_orders_in_status', args, alice);
    const version = current.meta?.toolVersion as string;
    const stale = await callAs('sq_orders_in_status', args, alice, { toolVersion: 'f'.repeat(64) });
    expect(stale.error).toMatchObject({ code: 'UNKNOWN_TOOL' });
    expect(stale.error?.details[0]).toMatchObject({ path: 'tool_version', expected: version });
    // The base tool's version is not the saved-query tool's.
    const base = await callAs('es_orders_search', { limit: 1 }, alice);
    const asBase = await callAs('sq_orders_in_status', args, alice, {
      toolVersion: base.meta?.toolVersion as string,
    });
    expect(asBase.error?.code).toBe('UNKNOWN_TOOL');
    const fresh = await callAs('sq_orders_in_status', args, alice, { toolVersion: version });
    expect(fresh.status).toBe('ok');
    // The version is core's savedQueryTool over the principal's own base tool — what the
    // synthesizer offers (same bundle, same narrowing, default synthesis options).
    expect(version).toBe(offeredVersion(inStatus, { user: 'alice' }));
    // A new approved revision is a new tool version.
    await h.putMemory({ ...inStatus, revision: 4, contentHash: '6'.repeat(64) });
    const moved = await eventually(async () => {
      const answer = await callAs('sq_orders_in_status', args, alice, { toolVersion: version });
      return answer.error?.code === 'UNKNOWN_TOOL' ? answer : undefined;
    });
    expect(moved.error?.details[0]?.['path']).toBe('tool_version');
    await h.putMemory(inStatus);
    await eventually(async () => {
      const answer = await callAs('sq_orders_in_status', args, alice, { toolVersion: version });
      return answer.status === 'ok' ? true : undefined;
    });
  });

  it('saved queries - the audit event names the base tool, the expanded arguments and the saved query', async () => {
    const alice = await as('support_bot', 'alice');
    const answer = await callAs('sq_orders_in_status', { status: 'paid', how_many: 2 }, alice);
    expect(answer.status).toBe('ok');
    const base = await callAs('es_orders_search', { limit: 1 }, alice);
    const event = await h.eventOf(answer.callId, EventTypes.callCompleted, 'OK');
    if (event.payload.case !== 'callCompleted') throw new Error('not call.completed');
    const c = event.payload.value;
    expect(c.status).toBe(CallStatus.OK);
    expect(c.tool).toBe('es_orders_search');
    expect(c.toolVersion).toBe(base.meta?.toolVersion);
    expect(c.arguments).toEqual({
      filters: [{ field: 'status', op: 'eq', value: 'paid' }],
      fields: ['id', 'status', 'amount'],
      sort: [{ field: 'created_at', order: 'desc' }],
      limit: 2,
    });
    expect(c.savedQuery).toMatchObject({
      id: inStatus.id,
      name: 'orders_in_status',
      revision: 3,
      contentHash: inStatus.contentHash,
      tool: 'sq_orders_in_status',
      toolVersion: answer.meta?.toolVersion,
    });
    expect(c.meta?.tool).toBe('sq_orders_in_status');
    expect(c.principal).toMatchObject({ agent: 'support_bot', user: 'alice' });
  });
});

describe('saved queries - preferred fields are the default projection', () => {
  it('saved queries - a search naming no fields gets the preferred ones it may see; named fields win', async () => {
    const alice = await as('support_bot', 'alice');
    const filters = [{ field: 'id', op: 'eq', value: '12345' }];
    const defaulted = await callAs('es_orders_search', { filters }, alice);
    expect(defaulted.status).toBe('ok');
    expect(defaulted.data).toEqual([{ _id: '12345', status: 'paid', id: '12345' }]);
    expect(defaulted.meta?.defaultFields).toEqual(['status', 'id']);
    const nulled = await callAs('es_orders_search', { filters, fields: null }, alice);
    expect(nulled.data).toEqual(defaulted.data);
    const named = await callAs('es_orders_search', { filters, fields: ['amount'] }, alice);
    expect(Object.keys((named.data as object[])[0] as object).sort()).toEqual(['_id', 'amount']);
    expect(named.meta?.defaultFields).toEqual([]);
    // The preference is alice's: bob gets every visible field.
    const bob = await callAs('es_orders_search', { filters }, await as('support_bot', 'bob'));
    expect(Object.keys((bob.data as object[])[0] as object).length).toBeGreaterThan(3);
    expect(bob.meta?.defaultFields).toEqual([]);
    // The audit arguments are what the agent asked; the default is in the meta.
    const event = await h.eventOf(defaulted.callId, EventTypes.callCompleted, 'OK');
    if (event.payload.case !== 'callCompleted') throw new Error('not call.completed');
    expect(event.payload.value.arguments).toEqual({ filters });
    expect(event.payload.value.meta?.defaultFields).toEqual(['status', 'id']);
  });

  it('saved queries - a saved query without fields gets the preferred fields of its base tool', async () => {
    const alice = await as('support_bot', 'alice');
    const answer = await callAs('sq_order_by_id', { order_id: '12345' }, alice);
    expect(answer.status).toBe('ok');
    expect(answer.data).toEqual([{ _id: '12345', status: 'paid', id: '12345' }]);
    expect(answer.meta?.defaultFields).toEqual(['status', 'id']);
    // One with fixed fields keeps them.
    const fixed = await callAs('sq_orders_in_status', { status: 'paid', how_many: 1 }, alice);
    expect(Object.keys((fixed.data as object[])[0] as object).sort()).toEqual([
      '_id',
      'amount',
      'id',
      'status',
    ]);
    expect(fixed.meta?.defaultFields).toEqual([]);
  });
});

describe('saved queries - rate limits', () => {
  it('saved queries - a saved-query call counts against its base tool, and is limited with it', async () => {
    const alice = await as('support_bot', 'alice');
    const descriptor = ordersResource({ endpoint: proxy.url, index: ORDERS_INDEX });
    await h.publishBundle([{ descriptor, version: 1 }], 2, {
      searchRateLimit: { requests: 2, perSeconds: 3_600 },
    });
    // Base-tool searches use up the limit…
    await eventually(async () => {
      const answer = await callAs('es_orders_search', { limit: 1 }, alice);
      return answer.error?.code === 'RATE_LIMITED' ? true : undefined;
    });
    // …so the saved query over the same tool is limited too (its own name has no limit).
    const limited = await callAs('sq_orders_in_status', { status: 'paid', how_many: 1 }, alice);
    expect(limited.error).toMatchObject({ code: 'RATE_LIMITED', category: 'retryable' });
  });
});
