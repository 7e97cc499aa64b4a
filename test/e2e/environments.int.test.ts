/**
 * One resource name in two environments of a tenant, through every service on a private NATS:
 * `shop_orders` is declared in `dev` and in `prod` (the same PostgreSQL table, each with its own
 * access block), an agent declared once for the tenant calls it in each. A resource's identity
 * is (tenant, environment, name), so each environment's calls are decided by that environment's
 * resource and policies — a call in each is allowed, and a denial in one does not reach the other.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TollgateClient } from '@tollgate/sdk';
import { eventually, uniqueName } from '../support/infra.js';
import { startServices } from './support/services.js';
import type { Services } from './support/services.js';
import { SQL_SERVERS } from './support/sql-servers.js';
import type { SqlTable } from './support/sql-servers.js';

const tenant = uniqueName('envs').replaceAll('_', '-');
let services: Services;
let table: SqlTable;
const agents = new Map<string, TollgateClient>();

function declared(environment: string, maxLimit: number): JsonObject {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name: 'shop_orders', tenant, environment, description: 'Orders of the shop.' },
    spec: {
      type: 'postgres',
      connection: { ...table.connection, timeoutMs: 5_000 },
      target: table.target,
      schema: {
        fields: {
          id: { type: 'integer', filterable: true, returnable: true, sortable: true },
          tenant: { type: 'string' },
          status: { type: 'string', filterable: true, returnable: true, aggregatable: true },
        },
      },
      access: {
        allowedRoles: ['support'],
        maxLimit,
        rowFilter: { field: 'tenant', equals: 'principal.tenant' },
      },
    },
  };
}

/** The outcome of an SDK call as plain data. */
async function outcome(
  client: TollgateClient,
  tool: string,
  args: JsonObject,
): Promise<{ status: string; data?: unknown; code?: string; message?: string }> {
  try {
    const result = await client.call(tool, args);
    if (result.status === 'ok') return { status: 'ok', data: result.data };
    if (result.status === 'error')
      return { status: 'error', code: result.error.code, message: result.error.message };
    return { status: result.status };
  } catch (err) {
    const { code, message } = err as { code?: unknown; message?: string };
    return { status: 'thrown', code: String(code), message: String(message) };
  }
}

beforeAll(async () => {
  services = await startServices({
    name: 'envs_e2e',
    env: process.env as Record<string, string>,
    policy: true,
    agents: true,
  });
  table = await SQL_SERVERS.find((s) => s.type === 'postgres')!.createTable(tenant);
  const policy = services.policyClient!;
  const operator = await services.as({ tenant, agent: 'tollgate-cli', environment: 'prod' });
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
  await policy.applyPolicy(
    {
      descriptor: {
        apiVersion: 'tollgate.dev/v1',
        kind: 'Policy',
        metadata: { name: 'no-dev-counts', tenant },
        spec: {
          grants: [
            {
              effect: 'deny',
              principals: { roles: ['support'] },
              actions: ['shop_orders.count'],
              conditions: { environment: ['dev'] },
            },
          ],
        },
      } as never,
    },
    operator,
  );
  for (const [environment, maxLimit] of [
    ['dev', 2],
    ['prod', 50],
  ] as const) {
    // A token acts in one environment: the operator applies each with its own.
    const there = await services.as({ tenant, agent: 'tollgate-cli', environment });
    const discovered = await services.registryClient.discover(
      { descriptor: declared(environment, maxLimit) as never },
      there,
    );
    await services.registryClient.apply({ descriptor: discovered.descriptor as never }, there);
    agents.set(
      environment,
      await services.connectAgent({ tenant, agent: 'support_bot', environment }),
    );
  }
}, 180_000);

afterAll(async () => {
  await services?.stop();
  await table?.drop();
}, 60_000);

describe('e2e - one resource name in two environments', () => {
  it('e2e - a call in each environment is allowed, on that environment’s resource', async () => {
    const offered = new Map<string, string[]>();
    for (const environment of ['dev', 'prod']) {
      const client = agents.get(environment)!;
      offered.set(
        environment,
        await eventually(async () => {
          const names = (await client.listTools()).map((t) => t.name).sort();
          return names.includes('shop_orders_search') ? names : undefined;
        }, 30_000),
      );
      const page = await eventually(async () => {
        const o = await outcome(client, 'shop_orders_search', { limit: 2 });
        return o.status === 'ok' ? o : undefined;
      }, 30_000);
      expect((page.data as unknown[]).length, environment).toBe(2);
    }
    // The dev-only denial shapes dev's tools alone.
    expect(offered.get('dev')).not.toContain('shop_orders_count');
    expect(offered.get('prod')).toContain('shop_orders_count');
    // Each environment's access block: dev caps a page at 2 rows, prod at 50.
    const dev = await outcome(agents.get('dev')!, 'shop_orders_search', { limit: 3 });
    expect(dev.status).not.toBe('ok');
    const prod = await outcome(agents.get('prod')!, 'shop_orders_search', { limit: 3 });
    expect(prod.status).toBe('ok');
    expect((prod.data as unknown[]).length).toBe(table.ownIds.length);
  });

  it('e2e - a denial in one environment does not reach the other', async () => {
    const before = await table.statementsRun();
    // Asked for anyway (it is not offered in dev), the executor denies it there.
    const dev = await services.h.call(
      'shop_orders_count',
      {},
      {
        token: await services.h.token('support_bot', { tenant, environment: 'dev' }),
        kind: 'postgres',
      },
    );
    expect(dev).toMatchObject({ status: 'error', error: { code: 'POLICY_DENIED' } });
    expect(await table.statementsRun()).toBe(before);
    const prod = await outcome(agents.get('prod')!, 'shop_orders_count', {});
    expect(prod).toMatchObject({ status: 'ok', data: { count: table.ownIds.length } });
  });
});
