/**
 * Discovery of a realistic schema (enums, composite key, view, comments, reserved-word
 * columns, precise types) and every read and write operation against the real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionSet } from '@tollgate/core';
import type { CatalogTable, SqlResourceSpec } from '@tollgate/connector-sql';

import { discoverPostgres } from '../src/discovery/discover.js';
import { closePools } from '../src/execute/pools.js';
import { callPostgres, connector, discovered } from './harness.js';
import { admin, createLogin, dropAll, serverOf, testCredentials, unique } from './support.js';

const db = admin();
const schema = unique('shopx');
const role = unique('tg_ops');
const alpha = { tenant: 'alpha', agent: 'ops' };
let catalog: CatalogTable;
let spec: SqlResourceSpec;
const permissions: PermissionSet = {
  operations: ['search', 'get', 'count', 'aggregate', 'insert', 'update'],
  visibleFields: ['amount', 'created_at', 'order', 'line', 'status', 'tenant', 'user', 'email'],
  filterableFields: ['amount', 'created_at', 'order', 'line', 'status', 'user'],
  limitCap: 3,
};
const call = (operation: string, args: unknown, principal = alpha) =>
  callPostgres('shop_lines', spec, permissions, principal, testCredentials, operation, args);

beforeAll(async () => {
  await db.query(`CREATE SCHEMA ${schema}`);
  await db.query(`CREATE TYPE ${schema}.line_status AS ENUM ('open', 'paid', 'void')`);
  await db.query(`CREATE TABLE ${schema}.lines (
    "order" bigint NOT NULL, line int NOT NULL, tenant text NOT NULL, "user" varchar(64),
    status ${schema}.line_status NOT NULL DEFAULT 'open', amount numeric(12,2), created_at timestamptz NOT NULL DEFAULT now(),
    ref uuid, meta jsonb, blob bytea, tags text[], wait interval, email text,
    PRIMARY KEY ("order", line))`);
  await db.query(`CREATE INDEX lines_created ON ${schema}.lines (created_at)`);
  await db.query(`COMMENT ON TABLE ${schema}.lines IS 'Order lines of the web shop'`);
  await db.query(`COMMENT ON COLUMN ${schema}.lines.amount IS 'Line total in EUR'`);
  await db.query(
    `CREATE VIEW ${schema}.paid_lines AS SELECT "order", line, amount FROM ${schema}.lines WHERE status = 'paid'`,
  );
  const rows: string[] = [];
  for (let i = 1; i <= 7; i += 1) {
    rows.push(
      `(${(9_007_199_254_740_990n + BigInt(i)).toString()}, 1, 'alpha', 'u${i % 3}', '${['open', 'paid', 'void'][i % 3]}', ${i}0.25, '2024-05-0${i}T10:00:00.123456Z', '123e4567-e89b-12d3-a456-42661417400${i}', '{"n": ${i}}', '\\x0102', '{a,b}', '1 day', 'e${i}@example.com')`,
    );
  }
  rows.push(
    `(1, 1, 'beta', 'ub', 'paid', 99.00, '2024-05-01T00:00:00Z', null, null, null, null, null, 'beta@example.com')`,
  );
  await db.query(`INSERT INTO ${schema}.lines VALUES ${rows.join(', ')}`);
  await createLogin(db, role, schema, 'TG_OPS_PG', { write: true });
  const connection = { ...serverOf(), credentialRef: 'env://TG_OPS_PG' };
  catalog = await discoverPostgres(connection, { schema, table: 'lines' }, testCredentials);
  const declared = {
    order: { type: 'integer', filterable: true, returnable: true, sortable: true },
    line: { type: 'integer', filterable: true, returnable: true, sortable: true },
    tenant: { type: 'string', returnable: true },
    user: { type: 'string', filterable: true, returnable: true, searchable: true },
    status: {
      type: 'string',
      filterable: true,
      returnable: true,
      aggregatable: true,
      searchable: true,
    },
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
    email: { type: 'string', returnable: true },
  } as const;
  ({ spec } = await discovered(
    {
      type: 'postgres',
      connection: { ...connection, timeoutMs: 3000 },
      target: { schema, table: 'lines' },
      schema: { fields: declared as never },
      access: {
        allowedRoles: ['ops'],
        readonly: false,
        maxLimit: 3,
        redact: { email: 'mask' },
        rowFilter: { field: 'tenant', equals: 'principal.tenant' },
      },
    },
    testCredentials,
  ));
});

afterAll(async () => {
  await closePools();
  await dropAll(db, schema, [role]);
  await db.end();
});

describe('postgres discovery and operations', () => {
  it('discovery - types keep their precision, enums, keys, indexes and comments are read', () => {
    const byName = Object.fromEntries(catalog.columns.map((c) => [c.name, c]));
    expect(catalog).toMatchObject({
      kind: 'table',
      description: 'Order lines of the web shop',
      primaryKey: ['order', 'line'],
    });
    expect(byName['order']?.type).toEqual({ class: 'integer', native: 'bigint', bits: 64 });
    expect(byName['status']?.type).toEqual({
      class: 'string',
      native: `${schema}.line_status`,
      enum: ['open', 'paid', 'void'],
    });
    expect(byName['amount']).toMatchObject({
      type: { class: 'decimal', precision: 12, scale: 2 },
      description: 'Line total in EUR',
      nullable: true,
    });
    expect(byName['created_at']).toMatchObject({
      type: { class: 'datetime', timeZone: true },
      nullable: false,
      hasDefault: true,
    });
    expect(byName['user']?.type).toEqual({
      class: 'string',
      native: 'character varying(64)',
      maxLength: 64,
    });
    expect(byName['ref']?.type.class).toBe('uuid');
    expect(byName['meta']?.type.class).toBe('json');
    expect(byName['blob']?.type.class).toBe('binary');
    expect(byName['tags']?.type).toMatchObject({ class: 'array', element: { class: 'string' } });
    expect(byName['wait']?.type.class).toBe('other');
    expect(catalog.warnings).toEqual([
      expect.objectContaining({ code: 'unsupported_type', column: 'wait' }),
    ]);
    expect(catalog.indexes.map((i) => i.columns)).toEqual(
      expect.arrayContaining([['created_at'], ['order', 'line']]),
    );
  });

  it('discovery - merged through core: undeclared columns proposed, never exposed; bytea not returnable; facts kept', async () => {
    const { merged, schema: found } = await discovered(
      { ...spec, schema: { fields: { ghost: { type: 'string', returnable: true } } } },
      testCredentials,
    );
    expect(merged.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'missing_in_source', field: 'ghost' }),
      ]),
    );
    expect(merged.fields['blob']).toMatchObject({ type: 'binary', returnable: false });
    expect(merged.proposed['blob']).toMatchObject({ returnable: false });
    expect(merged.proposed['amount']).toMatchObject({
      type: 'decimal',
      filterable: true,
      range: true,
      sortable: true,
      description: 'Line total in EUR',
      column: { native: 'numeric(12,2)', precision: 12, scale: 2, nullable: true },
    });
    expect(merged.proposed['order']).toMatchObject({
      column: { primaryKey: 1, bits: 64, nullable: false, indexed: true },
    });
    expect(merged.proposed['line']).toMatchObject({ column: { primaryKey: 2 } });
    expect(merged.proposed['status']).toMatchObject({ searchable: false, filterable: true });
    expect(found.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'unsupported_type', field: 'wait' }),
      ]),
    );
    // The merged version offers get and update by the composite key, typed per column.
    const offered = connector.operations({
      apiVersion: 'tollgate.dev/v1',
      kind: 'Resource',
      metadata: { name: 'shop_lines', tenant: 'team-a', environment: 'test' },
      spec: spec as never,
    });
    expect(offered.map((op) => op.name)).toEqual([
      'search',
      'get',
      'count',
      'aggregate',
      'insert',
      'update',
    ]);
  });

  it('discovery - a view is found as a view', async () => {
    const view = await discoverPostgres(
      spec.connection,
      { schema, table: 'paid_lines' },
      testCredentials,
    );
    expect(view).toMatchObject({ kind: 'view', primaryKey: [] });
    await expect(
      discoverPostgres(spec.connection, { schema, table: 'nope' }, testCredentials),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('search - keyset pages visit every row of the principal once, in order, across a composite key', async () => {
    const seen: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page += 1) {
      const result = await call('search', {
        sort: [{ field: 'amount', order: 'desc' }],
        fields: ['order', 'amount', 'email', 'created_at'],
        cursor: cursor ?? null,
      });
      seen.push(...(result.data as unknown[]));
      cursor = result.cursor;
      if (cursor === undefined) break;
      expect(result.truncated).toBe(true);
    }
    expect(seen.map((r) => (r as { amount: string }).amount)).toEqual([
      '70.25',
      '60.25',
      '50.25',
      '40.25',
      '30.25',
      '20.25',
      '10.25',
    ]);
    expect(seen[0]).toEqual({
      order: '9007199254740997',
      amount: '70.25',
      email: '***',
      created_at: '2024-05-07T10:00:00.123456Z',
    });
  });

  it('search - a cursor is sealed to its query and its principal', async () => {
    const first = await call('search', { sort: [{ field: 'amount', order: 'asc' }] });
    expect(first.cursor).toBeDefined();
    await expect(
      call('search', { sort: [{ field: 'amount', order: 'desc' }], cursor: first.cursor }),
    ).rejects.toMatchObject({ code: 'ARGUMENTS_INVALID' });
    await expect(
      call(
        'search',
        { sort: [{ field: 'amount', order: 'asc' }], cursor: first.cursor },
        { tenant: 'beta', agent: 'ops' },
      ),
    ).rejects.toMatchObject({ code: 'ARGUMENTS_INVALID' });
  });

  it('filters - ranges on dates and decimals, enums, prefix', async () => {
    const result = await call('count', {
      filters: [
        {
          field: 'created_at',
          op: 'between',
          value: ['2024-05-02T00:00:00+02:00', '2024-05-05T12:00:00Z'],
        },
        { field: 'amount', op: 'gt', value: '20.25' },
        { field: 'status', op: 'in', value: ['open', 'paid'] },
        { field: 'user', op: 'prefix', value: 'U' },
      ],
    });
    expect(result.data).toEqual({ count: 2 });
    expect(result.total).toEqual({ value: 2, relation: 'eq' });
  });

  it('get - by composite key, inside the row filter', async () => {
    const row = await call('get', {
      key: { order: '9007199254740991', line: 1 },
      fields: ['status', 'amount'],
    });
    expect(row.data).toEqual({ status: 'paid', amount: '10.25' });
    await expect(call('get', { key: { order: '1', line: 1 } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('aggregate - terms, stats, histograms and groupings of the principal rows only', async () => {
    expect(
      (await call('aggregate', { aggregation: { kind: 'terms', field: 'status' } })).data,
    ).toEqual({
      kind: 'terms',
      field: 'status',
      buckets: [
        { key: 'paid', count: 3 },
        { key: 'open', count: 2 },
        { key: 'void', count: 2 },
      ],
    });
    expect(
      (await call('aggregate', { aggregation: { kind: 'stats', field: 'amount' } })).data,
    ).toEqual({
      kind: 'stats',
      field: 'amount',
      stats: { count: 7, min: '10.25', max: '70.25', avg: '40.2500000000000000', sum: '281.75' },
    });
    const histogram = await call('aggregate', {
      aggregation: { kind: 'date_histogram', field: 'created_at', interval: 'month' },
    });
    expect(histogram.data).toEqual({
      kind: 'date_histogram',
      field: 'created_at',
      buckets: [{ key: '2024-05-01T00:00:00Z', count: 7 }],
    });
    const grouped = await call('aggregate', {
      aggregation: {
        groupBy: ['status'],
        metrics: [{ fn: 'count' }, { fn: 'sum', field: 'amount' }],
        size: 2,
      },
    });
    expect(grouped).toMatchObject({
      truncated: true,
      returned: 2,
      data: {
        kind: 'group',
        groupBy: ['status'],
        buckets: [
          { key: 'paid', count: 3, sum_amount: '120.75' },
          { key: 'open', count: 2, sum_amount: '90.50' },
        ],
      },
    });
  });

  it('write - insert, update by key, and no takeover of another tenant row', async () => {
    const created = await call('insert', {
      values: { order: '5', line: 2, status: 'open', amount: '1.10' },
    });
    expect(created.data).toEqual({ key: { order: '5', line: 2 }, result: 'created' });
    const updated = await call('update', {
      key: { order: '5', line: 2 },
      values: { status: 'paid' },
    });
    expect(updated.data).toEqual({ key: { order: '5', line: 2 }, result: 'updated' });
    expect(
      (await call('get', { key: { order: '5', line: 2 }, fields: ['status', 'tenant'] })).data,
    ).toEqual({ status: 'paid', tenant: 'alpha' });
    await expect(
      call('update', { key: { order: '1', line: 1 }, values: { status: 'void' } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      call('insert', { values: { order: '1', line: 1, status: 'void' } }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await expect(
      call('insert', { values: { order: '6', line: 1, tenant: 'beta' } }),
    ).rejects.toMatchObject({ code: 'ARGUMENTS_INVALID' });
    expect(
      (await db.query(`SELECT status, tenant FROM ${schema}.lines WHERE "order" = 1`)).rows[0],
    ).toEqual({ status: 'paid', tenant: 'beta' });
  });
});
