/**
 * Discovery of a realistic schema (enums, composite key, view, comments, reserved-word
 * columns, MariaDB's JSON, unsigned and boolean columns, a case-sensitive collation,
 * unsupported types) and the read and write operations against the real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionSet } from '@tollgate/core';
import type { CatalogTable, SqlResourceSpec } from '@tollgate/connector-sql';

import { discoverMysql } from '../src/discovery/discover.js';
import { closePools } from '../src/execute/pools.js';
import { callMysql, connector, discovered } from './harness.js';
import {
  admin,
  createLogin,
  dropAll,
  rowsOf,
  serverOf,
  testCredentials,
  unique,
} from './support.js';

const db = admin();
const database = unique('shopx');
const user = unique('tg_ops');
const alpha = { tenant: 'alpha', agent: 'ops' };
let catalog: CatalogTable;
let spec: SqlResourceSpec;
const permissions: PermissionSet = {
  operations: ['search', 'get', 'count', 'aggregate', 'insert', 'update'],
  visibleFields: ['amount', 'created_at', 'order', 'line', 'status', 'tenant', 'user', 'code'],
  filterableFields: ['amount', 'created_at', 'order', 'line', 'status', 'user', 'code'],
  limitCap: 3,
};
const call = (operation: string, args: unknown, principal = alpha, on = spec) =>
  callMysql('shop_lines', on, permissions, principal, testCredentials, operation, args);

beforeAll(async () => {
  await db.query(`CREATE DATABASE \`${database}\``);
  await db.query(`CREATE TABLE \`${database}\`.lines (
    \`order\` bigint unsigned NOT NULL, line int NOT NULL, tenant varchar(16) NOT NULL,
    \`user\` varchar(64), status enum('open','paid','it''s void') NOT NULL DEFAULT 'open',
    amount decimal(12,2) COMMENT 'Line total in EUR', created_at datetime(6) NOT NULL,
    seen timestamp NULL, meta json, blob_data blob, flag boolean, spot point, wait time,
    code varchar(20) COLLATE utf8mb4_bin,
    PRIMARY KEY (\`order\`, line), KEY lines_created (created_at)
  ) COMMENT 'Order lines of the web shop'`);
  await db.query(
    `CREATE VIEW \`${database}\`.paid_lines AS SELECT \`order\`, line, amount FROM \`${database}\`.lines WHERE status = 'paid'`,
  );
  await db.query(`CREATE TABLE \`${database}\`.notes (
    id int AUTO_INCREMENT PRIMARY KEY, tenant varchar(16) NOT NULL, body varchar(200) NOT NULL)`);
  const statuses = ['open', 'paid', "it's void"];
  for (let i = 1; i <= 7; i += 1) {
    await db.execute(
      `INSERT INTO \`${database}\`.lines VALUES (?, 1, 'alpha', ?, ?, ?, ?, ?, ?, NULL, ?, NULL, NULL, ?)`,
      [
        (18_446_744_073_709_551_600n + BigInt(i)).toString(),
        `u${i % 3}`,
        statuses[i % 3] as string,
        `${i}0.25`,
        `2024-05-0${i} 10:00:00.123456`,
        `2024-05-0${i} 10:00:00`,
        JSON.stringify({ n: i }),
        i % 2,
        i % 2 === 0 ? `ABC-${i}` : `abc-${i}`,
      ],
    );
  }
  await db.query(
    `INSERT INTO \`${database}\`.lines (\`order\`, line, tenant, \`user\`, status, amount, created_at) VALUES (1, 1, 'beta', 'ub', 'paid', 99.00, '2024-05-01 00:00:00')`,
  );
  await createLogin(db, user, database, 'TG_OPS_MYSQL', { write: true });
  const connection = { ...serverOf(), credentialRef: 'env://TG_OPS_MYSQL' };
  catalog = await discoverMysql(connection, { schema: database, table: 'lines' }, testCredentials);
  const declared = {
    order: { type: 'integer', filterable: true, returnable: true, sortable: true },
    line: { type: 'integer', filterable: true, returnable: true, sortable: true },
    tenant: { type: 'string', returnable: true },
    user: { type: 'string', filterable: true, returnable: true, searchable: true },
    status: { type: 'string', filterable: true, returnable: true, aggregatable: true },
    amount: {
      type: 'decimal',
      filterable: true,
      range: true,
      returnable: true,
      sortable: true,
      aggregatable: true,
    },
    created_at: {
      type: 'datetime',
      filterable: true,
      range: true,
      returnable: true,
      sortable: true,
      aggregatable: true,
    },
    code: { type: 'string', filterable: true, returnable: true, searchable: true },
  };
  ({ spec } = await discovered(
    {
      type: 'mysql',
      connection,
      target: { schema: database, table: 'lines' },
      schema: { fields: declared as never },
      access: {
        allowedRoles: ['ops'],
        readonly: false,
        rowFilter: { field: 'tenant', equals: 'principal.tenant' },
      },
    },
    testCredentials,
  ));
});

afterAll(async () => {
  await closePools();
  await dropAll(db, database, [user]);
  await db.end();
});

describe('mysql operations', () => {
  it('discovery - types keep their precision, enums, keys, indexes and comments are read', () => {
    const byName = Object.fromEntries(catalog.columns.map((c) => [c.name, c]));
    expect(catalog).toMatchObject({
      kind: 'table',
      description: 'Order lines of the web shop',
      primaryKey: ['order', 'line'],
    });
    expect(byName['order']?.type).toEqual({
      class: 'integer',
      native: 'bigint(20) unsigned',
      bits: 64,
      unsigned: true,
    });
    expect(byName['status']?.type).toEqual({
      class: 'string',
      native: "enum('open','paid','it''s void')",
      enum: ['open', 'paid', "it's void"],
    });
    expect(byName['amount']).toMatchObject({
      type: { class: 'decimal', precision: 12, scale: 2 },
      description: 'Line total in EUR',
      nullable: true,
    });
    expect(byName['created_at']).toMatchObject({
      type: { class: 'datetime', timeZone: false },
      nullable: false,
    });
    expect(byName['seen']?.type).toMatchObject({ class: 'datetime', timeZone: true });
    expect(byName['user']?.type).toEqual({ class: 'string', native: 'varchar(64)', maxLength: 64 });
    expect(byName['code']?.type.native).toBe('varchar(20) COLLATE utf8mb4_bin');
    expect(byName['meta']?.type.class).toBe('json');
    expect(byName['blob_data']?.type.class).toBe('binary');
    expect(byName['flag']?.type.class).toBe('boolean');
    expect(catalog.warnings).toEqual([
      expect.objectContaining({ code: 'unsupported_type', column: 'spot' }),
      expect.objectContaining({ code: 'unsupported_type', column: 'wait' }),
    ]);
    expect(catalog.indexes.map((i) => i.columns)).toEqual(
      expect.arrayContaining([['created_at'], ['order', 'line']]),
    );
  });

  it('discovery - merged through core: proposals keep the facts; a view is a view; a missing table is NOT_FOUND', async () => {
    const { merged } = await discovered({ ...spec, schema: { fields: {} } }, testCredentials);
    expect(merged.proposed['blob_data']).toMatchObject({ returnable: false });
    expect(merged.proposed['order']).toMatchObject({
      column: { primaryKey: 1, bits: 64, unsigned: true, nullable: false, indexed: true },
    });
    expect(merged.proposed['line']).toMatchObject({ column: { primaryKey: 2 } });
    const view = await discoverMysql(
      spec.connection,
      { schema: database, table: 'paid_lines' },
      testCredentials,
    );
    expect(view).toMatchObject({ kind: 'view', primaryKey: [] });
    expect(view.description).toBeUndefined();
    await expect(
      discoverMysql(spec.connection, { schema: database, table: 'nope' }, testCredentials),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(
      connector
        .operations({
          apiVersion: 'tollgate.dev/v1',
          kind: 'Resource',
          metadata: { name: 'shop_lines', tenant: 'team-a', environment: 'test' },
          spec: spec as never,
        })
        .map((op) => op.name),
    ).toEqual(['search', 'get', 'count', 'aggregate', 'insert', 'update']);
  });

  it('search - keyset pages visit every row once across a composite unsigned 64-bit key', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page += 1) {
      const result = await call('search', {
        fields: ['order', 'created_at'],
        sort: [{ field: 'created_at', order: 'desc' }],
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const row of result.data as Array<{ order: string; created_at: string }>) {
        seen.push(row.order);
        expect(row.created_at).toMatch(/^2024-05-0\dT10:00:00\.123456$/);
      }
      cursor = result.cursor;
      if (cursor === undefined) break;
    }
    expect(seen).toEqual(
      [7, 6, 5, 4, 3, 2, 1].map((i) => (18_446_744_073_709_551_600n + BigInt(i)).toString()),
    );
  });

  it('filters - ranges on date-times and decimals, enums, text search under the column collation', async () => {
    const ranged = await call('count', {
      filters: [
        { field: 'amount', op: 'between', value: ['20.25', '50.25'] },
        { field: 'created_at', op: 'lt', value: '2024-05-05T00:00:00' },
      ],
    });
    expect(ranged.data).toEqual({ count: 3 });
    expect(
      (await call('count', { filters: [{ field: 'status', op: 'eq', value: "it's void" }] })).data,
    ).toEqual({ count: 2 });
    // utf8mb4_bin tells case apart in `=`, and text search is still case-insensitive.
    expect(
      (await call('count', { filters: [{ field: 'code', op: 'eq', value: 'abc-1' }] })).data,
    ).toEqual({ count: 1 });
    expect(
      (await call('count', { filters: [{ field: 'code', op: 'prefix', value: 'abc' }] })).data,
    ).toEqual({ count: 7 });
    expect(
      (await call('count', { filters: [{ field: 'user', op: 'prefix', value: 'U1' }] })).data,
    ).toEqual({ count: 3 });
  });

  it('aggregate - terms, stats, histograms and groupings of the principal rows only', async () => {
    expect(
      (await call('aggregate', { aggregation: { kind: 'terms', field: 'status' } })).data,
    ).toEqual({
      kind: 'terms',
      field: 'status',
      buckets: [
        { key: 'paid', count: 3 },
        // Ties in the enum's own order, as the server sorts enums.
        { key: 'open', count: 2 },
        { key: "it's void", count: 2 },
      ],
    });
    const stats = await call('aggregate', { aggregation: { kind: 'stats', field: 'amount' } });
    expect(stats.data).toMatchObject({
      kind: 'stats',
      stats: { count: 7, min: '10.25', max: '70.25', sum: '281.75' },
    });
    expect(String((stats.data as { stats: { avg: string } }).stats.avg)).toMatch(/^40\.25/);
    const histogram = await call('aggregate', {
      aggregation: { kind: 'date_histogram', field: 'created_at', interval: 'week' },
    });
    expect(histogram.data).toEqual({
      kind: 'date_histogram',
      field: 'created_at',
      buckets: [
        { key: '2024-04-29T00:00:00', count: 5 },
        { key: '2024-05-06T00:00:00', count: 2 },
      ],
    });
  });

  it('write - insert, update by key (same values too), no takeover, and an auto-increment key reported', async () => {
    const created = await call('insert', {
      values: {
        order: '5',
        line: 2,
        status: 'open',
        amount: '1.10',
        created_at: '2024-06-01T08:00:00',
      },
    });
    expect(created.data).toEqual({ key: { order: '5', line: 2 }, result: 'created' });
    const updated = await call('update', {
      key: { order: '5', line: 2 },
      values: { status: 'paid' },
    });
    expect(updated.data).toEqual({ key: { order: '5', line: 2 }, result: 'updated' });
    const again = await call('update', {
      key: { order: '5', line: 2 },
      values: { status: 'paid' },
    });
    expect(again.data).toEqual({ key: { order: '5', line: 2 }, result: 'updated' });
    await expect(
      call('update', { key: { order: '1', line: 1 }, values: { status: 'open' } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      call('insert', {
        values: { order: '1', line: 1, status: 'open', created_at: '2024-06-01T08:00:00' },
      }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    const [beta] = await rowsOf<{ status: string; tenant: string }>(
      db,
      `SELECT status, tenant FROM \`${database}\`.lines WHERE \`order\` = 1`,
    );
    expect(beta).toEqual({ status: 'paid', tenant: 'beta' });

    const notes = await discovered(
      {
        type: 'mysql',
        connection: spec.connection,
        target: { schema: database, table: 'notes' },
        schema: {
          fields: {
            id: { type: 'integer', returnable: true, filterable: true },
            body: { type: 'string', returnable: true },
            tenant: { type: 'string' },
          } as never,
        },
        access: {
          allowedRoles: ['ops'],
          readonly: false,
          rowFilter: { field: 'tenant', equals: 'principal.tenant' },
        },
      },
      testCredentials,
    );
    const note = await callMysql(
      'notes',
      notes.spec,
      {
        operations: ['insert', 'get'],
        visibleFields: ['id', 'body'],
        filterableFields: ['id'],
        limitCap: 5,
      },
      alpha,
      testCredentials,
      'insert',
      { values: { body: 'first' } },
    );
    expect(note.data).toEqual({ key: { id: 1 }, result: 'created' });
  });
});
