/**
 * A SQL table as a governed resource, through every service on a private NATS with the real
 * subject permissions, once for each SQL kind (PostgreSQL and MariaDB): the operator declares
 * the Agents and a Policy with the policy service, and discovers and applies the resource with
 * the registry over gRPC (as `tollgate discover` and `tollgate apply` do); the policy service
 * compiles the bundle, the synthesizer offers each agent its restricted tools, the agents call
 * them with the SDK over NATS, the executor runs them on the real server, and audit chains the
 * records. What reached the server is read from the server's own statement counters for the
 * login the resource names, never inferred.
 */
import { create } from '@bufbuild/protobuf';
import type { JsonObject } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RpcClient } from '@tollgate/contracts';
import { VerifyRequestSchema } from '@tollgate/contracts/audit/v1';
import type { PolicyService } from '@tollgate/contracts/policy/v1';
import type { TollgateClient } from '@tollgate/sdk';
import type { Tool } from '@tollgate/sdk';
import { eventually, uniqueName } from '../support/infra.js';
import { startServices } from './support/services.js';
import type { Services } from './support/services.js';
import { SQL_SERVERS } from './support/sql-servers.js';
import type { SqlServer, SqlTable } from './support/sql-servers.js';

const ENVIRONMENT = 'prod';

let services: Services;
let policy: RpcClient<typeof PolicyService>;

beforeAll(async () => {
  services = await startServices({
    name: 'sql_e2e',
    // Each server's setup puts its login's secret into this process's environment.
    env: process.env as Record<string, string>,
    policy: true,
    agents: true,
  });
  policy = services.policyClient!;
}, 120_000);

afterAll(async () => {
  await services?.stop();
}, 60_000);

const as = (tenant: string, agent: string) =>
  services.as({ tenant, agent, environment: ENVIRONMENT });
const agentClient = (tenant: string, agent: string) =>
  services.connectAgent({ tenant, agent, environment: ENVIRONMENT });

/** The resource as an operator writes it: columns and capabilities, no discovery facts. */
function declared(tenant: string, server: SqlServer, table: SqlTable): JsonObject {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: {
      name: 'shop_orders',
      tenant,
      environment: ENVIRONMENT,
      description: 'Orders placed in the web shop, one row per order.',
    },
    spec: {
      type: server.type,
      connection: { ...table.connection, timeoutMs: 5_000 },
      target: table.target,
      schema: {
        fields: {
          id: { type: 'integer', filterable: true, returnable: true, sortable: true },
          tenant: { type: 'string' },
          customer_email: { type: 'string', returnable: true },
          status: { type: 'string', filterable: true, returnable: true, aggregatable: true },
          total: { type: 'decimal', filterable: true, range: true, returnable: true },
          internal_margin: { type: 'decimal', filterable: true, returnable: true },
        },
      },
      access: {
        allowedRoles: ['support', 'order_ops'],
        readonly: false,
        maxLimit: 50,
        fieldRoles: { internal_margin: ['order_ops'] },
        redact: { customer_email: 'mask' },
        rowFilter: { field: 'tenant', equals: 'principal.tenant' },
      },
    },
  };
}

/** The outcome of an SDK call as plain data (a thrown ToolCallError becomes an error outcome). */
async function outcome(
  client: TollgateClient,
  tool: string | Tool,
  args: JsonObject,
  options: { idempotencyKey?: string } = {},
): Promise<{
  status: string;
  callId?: string;
  data?: unknown;
  error?: { code: string; message?: string };
}> {
  try {
    const result = await client.call(tool, args, options);
    if (result.status === 'ok') return { status: 'ok', callId: result.callId, data: result.data };
    if (result.status === 'error')
      return {
        status: 'error',
        callId: result.callId,
        error: { code: result.error.code, message: result.error.message },
      };
    return { status: result.status, callId: result.callId };
  } catch (err) {
    const { code, message } = err as { code?: unknown; message?: string };
    return { status: 'thrown', error: { code: String(code), message: String(message) } };
  }
}

describe.each(SQL_SERVERS)('e2e - a $type table through every service', (server) => {
  const tenant = uniqueName('sqle2e').replaceAll('_', '-');
  let table: SqlTable;
  let support: TollgateClient;
  let ops: TollgateClient;

  beforeAll(async () => {
    table = await server.createTable(tenant);
    const operator = await as(tenant, 'tollgate-cli');
    const agent = (name: string, roles: string[]) => ({
      descriptor: {
        apiVersion: 'tollgate.dev/v1',
        kind: 'Agent',
        metadata: { name, tenant },
        spec: { roles },
      } as never,
    });
    await policy.applyAgent(agent('tollgate-cli', ['admin']), operator);
    await policy.applyAgent(agent('support_bot', ['support']), operator);
    await policy.applyAgent(agent('ops_bot', ['order_ops']), operator);
    await policy.applyPolicy(
      {
        descriptor: {
          apiVersion: 'tollgate.dev/v1',
          kind: 'Policy',
          metadata: { name: 'orders-writes', tenant },
          spec: {
            grants: [
              {
                effect: 'allow',
                principals: { agents: ['ops_bot'] },
                actions: ['shop_orders.insert', 'shop_orders.update'],
              },
            ],
          },
        } as never,
      },
      operator,
    );
    const discovered = await services.registryClient.discover(
      { descriptor: declared(tenant, server, table) as never },
      operator,
    );
    await services.registryClient.apply({ descriptor: discovered.descriptor as never }, operator);
    support = await agentClient(tenant, 'support_bot');
    ops = await agentClient(tenant, 'ops_bot');
  }, 120_000);

  afterAll(async () => {
    await table?.drop();
  });

  it('e2e - discovery facts are stored, and each agent is offered only its tools and fields', async () => {
    const stored = await services.registryClient.get(
      { tenant, environment: ENVIRONMENT, name: 'shop_orders' },
      await as(tenant, 'tollgate-cli'),
    );
    const fields = (
      stored.resource?.descriptor as {
        spec: { schema: { fields: Record<string, { column?: { primaryKey?: number } }> } };
      }
    ).spec.schema.fields;
    expect(fields.id?.column?.primaryKey).toBe(1);

    const names = async (client: TollgateClient) =>
      eventually(async () => {
        const tools = (await client.listTools()).map((t) => t.name).sort();
        return tools.length > 0 ? tools : undefined;
      }, 20_000);
    expect(await names(support)).toEqual([
      'shop_orders_aggregate',
      'shop_orders_count',
      'shop_orders_get',
      'shop_orders_search',
    ]);
    expect(await names(ops)).toEqual([
      'shop_orders_aggregate',
      'shop_orders_count',
      'shop_orders_get',
      'shop_orders_insert',
      'shop_orders_search',
      'shop_orders_update',
    ]);
    const search = await support.getTool('shop_orders_search');
    expect(JSON.stringify(search.inputSchema)).not.toContain('internal_margin');
    expect(JSON.stringify(search.inputSchema)).not.toContain('"tenant"');
  });

  it('e2e - only the visible fields come back, redacted, and only the principal tenant rows', async () => {
    const page = await outcome(support, 'shop_orders_search', { limit: 50 });
    expect(page.status).toBe('ok');
    const rows = page.data as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.id)).toEqual(table.ownIds);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['customer_email', 'id', 'status', 'total']);
      expect(row.customer_email).toBe('***');
    }
    // Another tenant's row, asked for by its key: the row filter holds.
    const foreign = await outcome(support, 'shop_orders_get', { id: table.foreignId });
    expect(foreign).toMatchObject({ status: 'error', error: { code: 'NOT_FOUND' } });
    const counted = await outcome(ops, 'shop_orders_count', {});
    expect(counted.data).toEqual({ count: table.ownIds.length });
    const withMargin = await outcome(ops, 'shop_orders_get', {
      id: table.ownIds[0]!,
      fields: ['id', 'internal_margin'],
    });
    expect(withMargin.data).toEqual({ id: table.ownIds[0], internal_margin: '1.50' });
  });

  it('e2e - a denied call never reaches the server (its own statement counters)', async () => {
    const insert = await ops.getTool('shop_orders_insert');
    const before = await table.statementsRun();
    // Support replays ops's insert tool; asks for a field it may not see; filters on it.
    const denied = [
      await outcome(support, insert, { values: { id: '777', status: 'paid', total: '1.00' } }),
      await outcome(support, 'shop_orders_search', { fields: ['internal_margin'] }),
      await outcome(support, 'shop_orders_search', {
        filters: [{ field: 'internal_margin', op: 'eq', value: '1.50' }],
      }),
      await outcome(support, 'shop_orders_search', {
        filters: [{ field: 'tenant', op: 'eq', value: 'other-tenant' }],
      }),
    ];
    expect(denied.map((d) => d.error?.code)).toEqual([
      'POLICY_DENIED',
      'ARGUMENTS_INVALID',
      'ARGUMENTS_INVALID',
      'ARGUMENTS_INVALID',
    ]);
    expect(await table.statementsRun()).toBe(before);
    expect(await table.countRows()).toBe(table.ownIds.length + 1);
    // The counter is live: an allowed read moves it.
    expect((await outcome(support, 'shop_orders_count', {})).status).toBe('ok');
    expect(await table.statementsRun()).toBeGreaterThan(before);
  });

  it('e2e - an insert with an idempotency key runs once, retried later or at once; the retries get its answer', async () => {
    const insert = (id: string, idempotencyKey: string) =>
      outcome(
        ops,
        'shop_orders_insert',
        { values: { id, status: 'pending', total: '9.99', internal_margin: '0.10' } },
        { idempotencyKey },
      );
    let before = await table.statementsRun();
    const first = await insert('5001', 'k-1');
    expect(first).toMatchObject({ status: 'ok', data: { result: 'created' } });
    expect(await table.statementsRun()).toBeGreaterThan(before);
    before = await table.statementsRun();
    const retry = await insert('5001', 'k-1');
    expect(retry).toMatchObject({ status: 'ok', data: first.data });
    expect(await table.statementsRun()).toBe(before);
    // What one insert costs the server on a warm connection, measured...
    expect(await insert('5002', 'k-2')).toMatchObject({ status: 'ok' });
    const oneInsert = (await table.statementsRun()) - before;
    before += oneInsert;
    // ...and four at once under a new key cost the same: one runs, the others wait for it.
    const burst = await Promise.all([1, 2, 3, 4].map(() => insert('5003', 'k-3')));
    expect(burst.map((b) => b.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(new Set(burst.map((b) => JSON.stringify(b.data)))).toEqual(
      new Set([JSON.stringify({ key: { id: '5003' }, result: 'created' })]),
    );
    expect(await table.statementsRun()).toBe(before + oneInsert);
    before += oneInsert;
    // The same key for other arguments is refused before anything runs.
    const reused = await insert('5004', 'k-1');
    expect(reused).toMatchObject({ status: 'error', error: { code: 'IDEMPOTENCY_CONFLICT' } });
    expect(await table.statementsRun()).toBe(before);
    expect(await table.rowOf('5001')).toEqual({ tenant, status: 'pending' });
    expect(await table.rowOf('5004')).toBeUndefined();
    expect(await table.countRows()).toBe(table.ownIds.length + 4);
  });

  it('e2e - writes stay inside the row filter: no change to, or takeover of, another tenant row', async () => {
    const foreign = await outcome(
      ops,
      'shop_orders_update',
      { id: table.foreignId, values: { status: 'refunded' } },
      { idempotencyKey: 'u-1' },
    );
    expect(foreign).toMatchObject({ status: 'error', error: { code: 'NOT_FOUND' } });
    expect(await table.rowOf(table.foreignId)).toEqual({ tenant: 'other-tenant', status: 'paid' });
    const moved = await outcome(
      ops,
      'shop_orders_insert',
      {
        values: { id: '6001', tenant: 'other-tenant', status: 'paid', total: '1.00' },
      },
      { idempotencyKey: 'i-1' },
    );
    expect(moved).toMatchObject({ status: 'error', error: { code: 'ARGUMENTS_INVALID' } });
    const own = await outcome(
      ops,
      'shop_orders_update',
      { id: table.ownIds[0]!, values: { status: 'refunded' } },
      { idempotencyKey: 'u-2' },
    );
    expect(own).toMatchObject({ status: 'ok', data: { result: 'updated' } });
    expect(await table.rowOf(table.ownIds[0]!)).toEqual({ tenant, status: 'refunded' });
    expect(await table.rowOf('6001')).toBeUndefined();
  });

  it('e2e - audit holds every call in an unbroken hash chain, and never the login secret', async () => {
    // Each call once, as it ended: reads, refusals, the control read, the inserts and updates.
    const ended = (type: string, op: string, status: string) =>
      `${type} shop_orders_${op} ${status}`;
    const expected = [
      ended('call.completed', 'search', 'ok'),
      ended('call.completed', 'get', 'error'),
      ended('call.completed', 'count', 'ok'),
      ended('call.completed', 'get', 'ok'),
      ended('call.denied', 'insert', ''),
      ...Array<string>(3).fill(ended('call.completed', 'search', 'error')),
      ended('call.completed', 'count', 'ok'),
      ...Array<string>(7).fill(ended('call.completed', 'insert', 'ok')),
      ended('call.completed', 'insert', 'error'),
      ended('call.completed', 'update', 'error'),
      ended('call.completed', 'insert', 'error'),
      ended('call.completed', 'update', 'ok'),
    ].sort();
    const records = await eventually(async () => {
      const found = await services.records({
        tenant,
        type: { $in: ['call.completed', 'call.denied'] },
      });
      return found.length >= expected.length ? found : undefined;
    }, 20_000);
    expect(records.map((r) => `${r['type']} ${r['tool']} ${r['status']}`).sort()).toEqual(expected);
    expect(await services.trail.verify(tenant, create(VerifyRequestSchema, {}))).toMatchObject({
      ok: true,
    });
    const all = await services.records({ tenant });
    expect(JSON.stringify(all)).not.toContain(table.secret);
  });
});
