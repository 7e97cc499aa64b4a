/**
 * The orders scenario on `shop.orders` (100,000 rows): a support agent and an ops agent ask
 * the same table and each sees only their columns, their tenant's rows, within their caps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  OPS_PERMISSIONS,
  SUPPORT_PERMISSIONS,
  seedShopOrders,
  shopOrdersSpec,
} from '../../../../test/fixtures/shop-orders.js';
import { closePools } from '../src/execute/pools.js';
import { callPostgres } from './harness.js';
import { admin, adminUrl, serverOf, testCredentials } from './support.js';

const db = admin();
const url = new URL(adminUrl());
process.env['TG_ORDERS_PG'] = JSON.stringify({
  username: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
});
const spec = shopOrdersSpec({
  ...serverOf(),
  credentialRef: 'env://TG_ORDERS_PG',
  timeoutMs: 5000,
});
const principal = { tenant: 'team-a', agent: 'bot' };

beforeAll(async () => {
  await seedShopOrders(db);
}, 120_000);
afterAll(async () => {
  await closePools();
  await db.end();
});

describe('orders scenario on postgres', () => {
  it('orders - the fixture holds 100,000 rows', async () => {
    expect((await db.query('SELECT count(*)::int AS n FROM shop.orders')).rows[0].n).toBe(100_000);
  });

  it('orders - support sees contact and status, masked; never totals or margins', async () => {
    const result = await callPostgres(
      'shop_orders',
      spec,
      SUPPORT_PERMISSIONS,
      principal,
      testCredentials,
      'get',
      { id: '12345' },
    );
    expect(Object.keys(result.data as object).sort()).toEqual([
      'customer_email',
      'customer_id',
      'id',
      'placed_at',
      'status',
    ]);
    expect(result.data).toMatchObject({
      id: '12345',
      customer_email: '***',
      placed_at: '2024-01-09T13:45:00Z',
    });
    await expect(
      callPostgres('shop_orders', spec, SUPPORT_PERMISSIONS, principal, testCredentials, 'search', {
        fields: ['total'],
      }),
    ).rejects.toMatchObject({ code: 'ARGUMENTS_INVALID' });
    await expect(
      callPostgres(
        'shop_orders',
        spec,
        SUPPORT_PERMISSIONS,
        principal,
        testCredentials,
        'aggregate',
        { aggregation: { kind: 'stats', field: 'total' } },
      ),
    ).rejects.toMatchObject({ code: 'POLICY_DENIED' });
  });

  it('orders - ops sees totals and margins, aggregates them, never the contact', async () => {
    const page = await callPostgres(
      'shop_orders',
      spec,
      OPS_PERMISSIONS,
      principal,
      testCredentials,
      'search',
      { filters: [{ field: 'status', op: 'eq', value: 'paid' }], limit: 50 },
    );
    expect(page).toMatchObject({ returned: 50, truncated: true });
    expect(Object.keys((page.data as object[])[0] as object).sort()).toEqual([
      'id',
      'internal_margin',
      'placed_at',
      'status',
      'total',
    ]);
    const count = await callPostgres(
      'shop_orders',
      spec,
      OPS_PERMISSIONS,
      principal,
      testCredentials,
      'count',
      {},
    );
    expect(count.data).toEqual({ count: 10_000 });
    expect(count.total).toEqual({ value: 10_000, relation: 'gte' });
    const byStatus = await callPostgres(
      'shop_orders',
      spec,
      OPS_PERMISSIONS,
      principal,
      testCredentials,
      'aggregate',
      {
        aggregation: {
          groupBy: ['status'],
          metrics: [{ fn: 'count' }, { fn: 'sum', field: 'total' }],
        },
      },
    );
    expect(
      (byStatus.data as { buckets: Array<{ count: number }> }).buckets.reduce(
        (sum, b) => sum + b.count,
        0,
      ),
    ).toBe(90_000);
  });

  it('orders - another tenant sees none of team-a', async () => {
    const byId = async (id: string) =>
      (
        (
          await callPostgres(
            'shop_orders',
            spec,
            SUPPORT_PERMISSIONS,
            { tenant: 'team-b', agent: 'bot' },
            testCredentials,
            'search',
            { filters: [{ field: 'id', op: 'eq', value: id }] },
          )
        ).data as Array<{ id: string }>
      ).map((r) => r.id);
    expect(await byId('12345')).toEqual([]);
    expect(await byId('12350')).toEqual(['12350']);
  });
});
