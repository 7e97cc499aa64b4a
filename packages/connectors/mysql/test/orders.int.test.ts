/** The orders scenario (packages/connectors/sql/test/orders-scenario.ts) on MariaDB. */
import { afterAll, beforeAll } from 'vitest';

import {
  seedShopOrdersMysql,
  shopOrdersMysqlSpec,
} from '../../../../test/fixtures/shop-orders-mysql.js';
import { describeOrdersScenario } from '../../sql/test/orders-scenario.js';
import { closePools } from '../src/execute/pools.js';
import { callMysql } from './harness.js';
import { admin, adminUrl, rowsOf, serverOf, testCredentials } from './support.js';

const db = admin();
const url = new URL(adminUrl());
process.env['TG_ORDERS_MYSQL'] = JSON.stringify({
  username: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
});
const spec = shopOrdersMysqlSpec({
  ...serverOf(),
  credentialRef: 'env://TG_ORDERS_MYSQL',
  timeoutMs: 5000,
});

beforeAll(async () => {
  await seedShopOrdersMysql(db);
}, 300_000);
afterAll(async () => {
  await closePools();
  await db.end();
});

describeOrdersScenario({
  kind: 'mysql',
  countRows: async () =>
    Number((await rowsOf<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM shop.orders'))[0]?.n),
  call: (permissions, principal, operation, args) =>
    callMysql('shop_orders', spec, permissions, principal, testCredentials, operation, args),
});
