/**
 * The orders scenario on `shop.orders` (100,000 rows), written once for every SQL kind: a
 * support agent and an ops agent ask the same table and each sees only their columns, their
 * tenant's rows, within their caps. Each kind's `orders.int.test.ts` seeds the table on its
 * server and passes how to call its connector.
 */
import { describe, expect, it } from 'vitest';
import type { CallPrincipal, PermissionSet, ShapedResult } from '@tollgate/core';

import {
  OPS_PERMISSIONS,
  SHOP_ORDERS_ROWS,
  SUPPORT_PERMISSIONS,
} from '../../../../test/fixtures/shop-orders.js';

export interface OrdersScenarioKind {
  /** The kind's name, for the test titles. */
  kind: string;
  /** How many rows `shop.orders` holds, counted by the server itself. */
  countRows(): Promise<number>;
  /** One call through the kind's connector (compile → execute → shape). */
  call(
    permissions: PermissionSet,
    principal: CallPrincipal,
    operation: string,
    args: unknown,
  ): Promise<ShapedResult>;
}

const teamA = { tenant: 'team-a', agent: 'bot' };

export function describeOrdersScenario({ kind, countRows, call }: OrdersScenarioKind): void {
  describe(`orders scenario on ${kind}`, () => {
    it(`orders - the ${kind} fixture holds 100,000 rows`, async () => {
      expect(await countRows()).toBe(SHOP_ORDERS_ROWS);
    });

    it('orders - support sees contact and status, masked; never totals or margins', async () => {
      const result = await call(SUPPORT_PERMISSIONS, teamA, 'get', { id: '12345' });
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
        call(SUPPORT_PERMISSIONS, teamA, 'search', { fields: ['total'] }),
      ).rejects.toMatchObject({ code: 'ARGUMENTS_INVALID' });
      await expect(
        call(SUPPORT_PERMISSIONS, teamA, 'aggregate', {
          aggregation: { kind: 'stats', field: 'total' },
        }),
      ).rejects.toMatchObject({ code: 'POLICY_DENIED' });
    });

    it('orders - ops sees totals and margins, aggregates them, never the contact', async () => {
      const page = await call(OPS_PERMISSIONS, teamA, 'search', {
        filters: [{ field: 'status', op: 'eq', value: 'paid' }],
        limit: 50,
      });
      expect(page).toMatchObject({ returned: 50, truncated: true });
      expect(Object.keys((page.data as object[])[0] as object).sort()).toEqual([
        'id',
        'internal_margin',
        'placed_at',
        'status',
        'total',
      ]);
      const count = await call(OPS_PERMISSIONS, teamA, 'count', {});
      expect(count.data).toEqual({ count: 10_000 });
      expect(count.total).toEqual({ value: 10_000, relation: 'gte' });
      const byStatus = await call(OPS_PERMISSIONS, teamA, 'aggregate', {
        aggregation: {
          groupBy: ['status'],
          metrics: [{ fn: 'count' }, { fn: 'sum', field: 'total' }],
        },
      });
      const buckets = (byStatus.data as { buckets: Array<{ count: number }> }).buckets;
      expect(buckets.reduce((sum, b) => sum + b.count, 0)).toBe(90_000);
    });

    it('orders - another tenant sees none of team-a', async () => {
      const byId = async (id: string) =>
        (
          (
            await call(SUPPORT_PERMISSIONS, { tenant: 'team-b', agent: 'bot' }, 'search', {
              filters: [{ field: 'id', op: 'eq', value: id }],
            })
          ).data as Array<{ id: string }>
        ).map((r) => r.id);
      expect(await byId('12345')).toEqual([]);
      expect(await byId('12350')).toEqual(['12350']);
    });
  });
}
