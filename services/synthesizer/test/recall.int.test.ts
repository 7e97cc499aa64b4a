import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolDefinition as WireTool } from '@tollgate/contracts/tools/v1';
import { agent, bundle, resource } from './support/fixtures.js';
import { eventually, ok, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';
import { shopBundle, shopScopes, TENANTS } from './support/shop.js';
import type { ShopScope } from './support/shop.js';

const DECOY_TENANT = 'team-decoy';
const DECOY_VERSION = 99;
const QUERIES = [
  'find order 12345',
  '搜索 id 为 12345 的订单',
  'customer email',
  '退货原因',
  'which parcels were shipped with which carrier',
  'orders',
];

let h: Harness;
const scopes: ShopScope[] = shopScopes();

/** Resources of another tenant whose text is exactly what the queries ask for. */
const decoys = [
  resource(DECOY_TENANT, 'order_12345_finder', {
    description: 'find order 12345 搜索 id 为 12345 的订单 orders 订单',
    access: { allowedRoles: ['reader'] },
  }),
  resource(DECOY_TENANT, 'es_orders', {
    description: 'Orders placed in the web shop, one document per order. 网店订单',
    access: { allowedRoles: ['reader'] },
  }),
];

beforeAll(async () => {
  h = await startHarness();
  const writes: Promise<void>[] = [];
  for (const scope of scopes) {
    for (const descriptor of scope.resources) writes.push(h.putResource(descriptor, scope.version));
  }
  for (const descriptor of decoys) writes.push(h.putResource(descriptor, DECOY_VERSION));
  await Promise.all(writes);
  for (const tenant of TENANTS) await h.putBundle(shopBundle(tenant, scopes));
  await h.putBundle(
    bundle({
      tenant: DECOY_TENANT,
      version: 1,
      agents: [agent(DECOY_TENANT, 'analyst', ['reader'])],
      policies: [],
      resources: decoys.map((descriptor) => ({ descriptor, version: DECOY_VERSION })),
    }),
  );
  await eventually(() => (h.running.synthesizer.catalog.size === 302 ? true : undefined), 60_000);
}, 240_000);

afterAll(async () => {
  await h?.close();
});

const principalOf = (scope: ShopScope) => ({
  tenant: scope.tenant,
  agent: 'analyst',
  environment: scope.environment,
});

/** Resources of a listing, in order. */
const resourcesOf = (tools: WireTool[]): string[] => [...new Set(tools.map((t) => t.resource))];

/** Fails unless every tool comes from `scope` (its resource names and its version). */
function expectFromScope(tools: WireTool[], scope: ShopScope): void {
  const own = new Set(scope.resources.map((r) => r.metadata.name));
  for (const tool of tools) {
    expect(own.has(tool.resource), `${tool.resource} in ${scope.tenant}/${scope.environment}`).toBe(
      true,
    );
    expect(tool.resourceVersion, `${tool.name} in ${scope.tenant}/${scope.environment}`).toBe(
      scope.version,
    );
  }
}

describe('synthesizer - recall over 300 resources in 3 tenants × 2 environments', () => {
  it('recall - "find order 12345" ranks the orders resource first in every scope', async () => {
    for (const scope of scopes) {
      const tools = ok(
        await h.listTools(await h.token(principalOf(scope)), { task: 'find order 12345' }),
      );
      const orders = scope.environment === 'prod' ? 'es_orders' : 'es_orders_stg';
      expect(resourcesOf(tools)[0], `${scope.tenant}/${scope.environment}`).toBe(orders);
      expect(tools[0]?.name).toBe(`${orders}_search`);
      // Only resources that match are offered: at most the default 10, here several.
      expect(resourcesOf(tools).length).toBeGreaterThan(3);
      expect(resourcesOf(tools).length).toBeLessThanOrEqual(10);
      expectFromScope(tools, scope);
    }
  });

  it('recall - "搜索 id 为 12345 的订单" ranks the orders resource first where resources are described in Chinese', async () => {
    for (const scope of scopes.filter((s) => s.tenant !== 'team-a')) {
      const tools = ok(
        await h.listTools(await h.token(principalOf(scope)), { task: '搜索 id 为 12345 的订单' }),
      );
      const orders = scope.environment === 'prod' ? 'es_orders' : 'es_orders_stg';
      expect(resourcesOf(tools)[0], `${scope.tenant}/${scope.environment}`).toBe(orders);
      expectFromScope(tools, scope);
    }
  });

  it('recall - no listing ever holds a resource of another tenant or environment, however similar its text', async () => {
    for (const scope of scopes) {
      const token = await h.token(principalOf(scope));
      for (const task of QUERIES) {
        for (const topK of [1, 10, 50]) {
          const tools = ok(await h.listTools(token, { task, topK }));
          expect(resourcesOf(tools).length).toBeLessThanOrEqual(topK);
          expectFromScope(tools, scope);
        }
      }
      const all = ok(await h.listTools(token, {}));
      expect(resourcesOf(all)).toHaveLength(50);
      expectFromScope(all, scope);
    }
    // The decoys are there and found by their own tenant.
    const decoy = ok(
      await h.listTools(
        await h.token({ tenant: DECOY_TENANT, agent: 'analyst', environment: 'prod' }),
        { task: 'find order 12345' },
      ),
    );
    expect(resourcesOf(decoy)[0]).toBe('order_12345_finder');
  });

  it('recall - a task matching nothing returns no tools rather than unranked ones', async () => {
    const scope = scopes[0] as ShopScope;
    const tools = ok(
      await h.listTools(await h.token(principalOf(scope)), { task: 'zebra giraffe xylophone' }),
    );
    expect(tools).toEqual([]);
  });
});
