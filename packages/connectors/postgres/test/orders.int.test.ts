/** The orders scenario (packages/connectors/sql/test/orders-scenario.ts) on PostgreSQL. */
import { afterAll, beforeAll } from 'vitest';

import { seedShopOrders, shopOrdersSpec } from '../../../../test/fixtures/shop-orders.js';
import { describeOrdersScenario } from '../../sql/test/orders-scenario.js';
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

beforeAll(async () => {
  await seedShopOrders(db);
}, 120_000);
afterAll(async () => {
  await closePools();
  await db.end();
});

describeOrdersScenario({
  kind: 'postgres',
  countRows: async () =>
    (await db.query('SELECT count(*)::int AS n FROM shop.orders')).rows[0].n as number,
  call: (permissions, principal, operation, args) =>
    callPostgres('shop_orders', spec, permissions, principal, testCredentials, operation, args),
});
