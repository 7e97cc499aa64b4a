/**
 * The hostile table: every attack either never reaches MariaDB (proven by the login's
 * performance_schema statement counters staying put) or reaches it only as a bind parameter
 * (proven by the server's own record of the statements: every prepared text holds `?` where
 * the value goes, and no statement text the login ran holds the value).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionSet } from '@tollgate/core';
import type { SqlResourceSpec } from '@tollgate/connector-sql';

import { executeMysql } from '../src/execute/execute.js';
import { closePools } from '../src/execute/pools.js';
import { callMysql, compileMysql, discovered } from './harness.js';
import {
  admin,
  createLogin,
  dropAll,
  rowsOf,
  serverOf,
  statementsRun,
  statementTextsOf,
  testCredentials,
  unique,
} from './support.js';

const db = admin();
const database = unique('hostile');
const user = unique('tg_hostile');
const HOSTILE_COLUMN = 'a`; DROP TABLE items; --';
const DOTTED_COLUMN = 'items.secret';
const HOMOGLYPH = 'emaіl'; // Cyrillic і (U+0456), not declared
const principal = { tenant: 'alpha', agent: 'hostile' };
let spec: SqlResourceSpec;

const permissions: PermissionSet = {
  operations: ['search', 'get', 'count', 'aggregate'],
  visibleFields: ['email', 'id', 'name', 'price', 'score', HOSTILE_COLUMN, DOTTED_COLUMN],
  filterableFields: ['id', 'name', 'price', 'score', HOSTILE_COLUMN, DOTTED_COLUMN],
  limitCap: 50,
};
const call = (operation: string, args: unknown) =>
  callMysql('hostile_items', spec, permissions, principal, testCredentials, operation, args);

/** Compiling `args` throws ARGUMENTS_INVALID at `path`, and MariaDB sees no statement at all. */
async function neverReaches(args: unknown, path: string, operation = 'search'): Promise<void> {
  const before = await statementsRun(db, user);
  expect(() =>
    compileMysql(operation, args, { resource: 'hostile_items', spec, permissions, principal }),
  ).toThrow(
    expect.objectContaining({
      code: 'ARGUMENTS_INVALID',
      details: expect.arrayContaining([expect.objectContaining({ path })]) as unknown,
    }),
  );
  expect(await statementsRun(db, user)).toBe(before);
}

beforeAll(async () => {
  await db.query(`CREATE DATABASE \`${database}\``);
  await db.query(`CREATE TABLE \`${database}\`.items (
    id bigint PRIMARY KEY, tenant varchar(16) NOT NULL, name varchar(200) NOT NULL,
    \`a\`\`; DROP TABLE items; --\` varchar(20), \`${HOMOGLYPH}\` text, email varchar(100),
    \`${DOTTED_COLUMN}\` varchar(20), price decimal(8,2), score double, secret text)`);
  await db.query(`INSERT INTO \`${database}\`.items VALUES
    (1, 'alpha', '100%_off', 'q1', 'x@evil', 'a@example.com', 'd1', 10.50, 1.5, 's1'),
    (2, 'alpha', '100xyz', 'q2', null, 'b@example.com', 'd2', 20.00, 2.5, 's2'),
    (3, 'alpha', 'O''Brien; DROP TABLE items; --', 'q3', null, 'c@example.com', 'd3', 30.00, null, 's3'),
    (4, 'beta', '100%_beta', 'q4', null, 'd@example.com', 'd4', 40.00, 4, 's4'),
    (9007199254740993, 'alpha', 'big', null, null, 'e@example.com', null, 0.01, 0, 's5')`);
  // Writes granted: only the read-only session stands between a read and a change.
  await createLogin(db, user, database, 'TG_HOSTILE_MYSQL', { write: true });
  const connection = {
    ...serverOf(),
    credentialRef: 'env://TG_HOSTILE_MYSQL',
    timeoutMs: 3000,
  };
  const target = { schema: database, table: 'items' };
  const bare: SqlResourceSpec = {
    type: 'mysql',
    connection,
    target,
    schema: { fields: {} },
    access: { allowedRoles: ['r1'] },
  };
  const found = await discovered(bare, testCredentials);
  const typeOf = (name: string) =>
    found.schema.fields.find((f) => f.path === name)?.type ?? 'string';
  const declared = Object.fromEntries(
    ['id', 'name', 'price', 'score', 'email', HOSTILE_COLUMN, DOTTED_COLUMN].map((name) => [
      name,
      {
        type: typeOf(name),
        filterable: name !== 'email',
        returnable: true,
        range: typeOf(name) !== 'string',
        sortable: true,
        searchable: typeOf(name) === 'string',
      },
    ]),
  );
  declared['tenant'] = { type: 'string', filterable: true, returnable: false } as never;
  ({ spec } = await discovered(
    {
      ...bare,
      schema: { fields: declared as never },
      access: { allowedRoles: ['r1'], rowFilter: { field: 'tenant', equals: 'principal.tenant' } },
    },
    testCredentials,
  ));
});

afterAll(async () => {
  await closePools();
  await dropAll(db, database, [user]);
  await db.end();
});

describe('mysql hostile table', () => {
  it('hostile - quotes, statement breaks, comments and SLEEP travel only as bind parameters', async () => {
    const values = [
      "x'; DROP TABLE items; --",
      'x/* comment */',
      '1); SELECT SLEEP(5); --',
      "O'Brien; DROP TABLE items; --",
      "x\\'; DROP TABLE items; --",
    ];
    for (const value of values) {
      const result = await call('search', { filters: [{ field: 'name', op: 'eq', value }] });
      expect(result.data).toEqual(
        value.startsWith("O'Brien") ? [expect.objectContaining({ id: '3', name: value })] : [],
      );
    }
    const contains = await call('search', {
      filters: [{ field: 'name', op: 'contains', value: 'SLEEP(5)' }],
    });
    expect(contains.data).toEqual([]);
    const { prepared, run } = await statementTextsOf(db, user);
    const searches = prepared.filter(
      (text) => text.startsWith('SELECT') && text.includes('`name`'),
    );
    expect(searches.length).toBeGreaterThanOrEqual(2);
    for (const text of searches) expect(text).toMatch(/`name` (=|LIKE) \?/);
    for (const text of [...prepared, ...run]) {
      expect(text).not.toMatch(/DROP TABLE items; --'|SLEEP\(5\)|comment \*\/|O'Brien|O''Brien/);
    }
    const [count] = await rowsOf<{ n: number }>(
      db,
      `SELECT count(*) AS n FROM \`${database}\`.items`,
    );
    expect(Number(count?.n)).toBe(5);
  });

  it('hostile - % and _ in prefix and contains filters match literally', async () => {
    const prefix = await call('search', {
      filters: [{ field: 'name', op: 'prefix', value: '100%_' }],
    });
    expect((prefix.data as Array<{ id: string }>).map((r) => r.id)).toEqual(['1']);
    const underscore = await call('search', {
      filters: [{ field: 'name', op: 'contains', value: '_' }],
    });
    expect((underscore.data as Array<{ id: string }>).map((r) => r.id)).toEqual(['1']);
    const percent = await call('count', {
      filters: [{ field: 'name', op: 'contains', value: '%' }],
    });
    expect(percent.data).toEqual({ count: 1 });
    const caseless = await call('count', {
      filters: [{ field: 'name', op: 'prefix', value: "o'brien" }],
    });
    expect(caseless.data).toEqual({ count: 1 });
  });

  it('hostile - declared columns named like an injection or a qualified name are quoted whole', async () => {
    const result = await call('search', {
      filters: [{ field: HOSTILE_COLUMN, op: 'eq', value: 'q2' }],
      fields: [HOSTILE_COLUMN, DOTTED_COLUMN, 'id'],
    });
    expect(result.data).toEqual([{ id: '2', [HOSTILE_COLUMN]: 'q2', [DOTTED_COLUMN]: 'd2' }]);
    const [table] = await rowsOf<{ n: number }>(
      db,
      `SELECT count(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'items'`,
      [database],
    );
    expect(Number(table?.n)).toBe(1);
  });

  it('hostile - identifiers outside the declaration never reach the server', async () => {
    await neverReaches(
      { filters: [{ field: HOMOGLYPH, op: 'eq', value: 'x' }] },
      'filters[0].field',
    );
    await neverReaches(
      { filters: [{ field: 'secret', op: 'eq', value: 's1' }] },
      'filters[0].field',
    );
    await neverReaches(
      { filters: [{ field: 'tenant', op: 'eq', value: 'beta' }] },
      'filters[0].field',
    );
    await neverReaches(
      { filters: [{ field: 'name; DROP TABLE items', op: 'eq', value: 'x' }] },
      'filters[0].field',
    );
    await neverReaches(
      { filters: [{ field: '__proto__', op: 'eq', value: 'x' }] },
      'filters[0].field',
    );
    await neverReaches({ fields: ['secret'] }, 'fields[0]');
    await neverReaches({ fields: [HOMOGLYPH] }, 'fields[0]');
    await neverReaches({ sort: [{ field: 'id; SELECT SLEEP(5)', order: 'asc' }] }, 'sort[0].field');
    await neverReaches(
      { sort: [{ field: 'id', order: 'asc; DROP TABLE items' }] },
      'sort[0].order',
    );
    await neverReaches(
      { filters: [{ field: 'name', op: "= 'x' OR 1=1 --", value: 'x' }] },
      'filters[0].op',
    );
    await neverReaches({ limit: '1; DROP TABLE items' }, 'limit');
  });

  it('hostile - huge IN lists are refused before any statement', async () => {
    await neverReaches(
      {
        filters: [
          { field: 'name', op: 'in', value: Array.from({ length: 101 }, (_v, i) => `n${i}`) },
        ],
      },
      'filters[0].value',
    );
    await neverReaches(
      {
        filters: [
          { field: 'name', op: 'in', value: Array.from({ length: 100_000 }, (_v, i) => `n${i}`) },
        ],
      },
      'filters[0].value',
    );
    const fine = await call('count', {
      filters: [
        {
          field: 'name',
          op: 'in',
          value: [
            '100%_off',
            '100xyz',
            "O'Brien; DROP TABLE items; --",
            '100%_beta',
            ...Array.from({ length: 96 }, (_v, i) => `n${i}`),
          ],
        },
      ],
    });
    expect(fine.data).toEqual({ count: 3 });
  });

  it('hostile - NaN, Infinity and numeric overflow are refused before any statement', async () => {
    await neverReaches(
      { filters: [{ field: 'score', op: 'eq', value: Number.NaN }] },
      'filters[0].value',
    );
    await neverReaches(
      { filters: [{ field: 'score', op: 'gt', value: Number.POSITIVE_INFINITY }] },
      'filters[0].value',
    );
    await neverReaches(
      { filters: [{ field: 'score', op: 'eq', value: 'NaN' }] },
      'filters[0].value',
    );
    await neverReaches(
      { filters: [{ field: 'price', op: 'eq', value: 'NaN' }] },
      'filters[0].value',
    );
    await neverReaches(
      { filters: [{ field: 'price', op: 'eq', value: 'Infinity' }] },
      'filters[0].value',
    );
    await neverReaches(
      { filters: [{ field: 'price', op: 'gte', value: '1000000.00' }] },
      'filters[0].value',
    );
    await neverReaches(
      { filters: [{ field: 'price', op: 'eq', value: '1.005' }] },
      'filters[0].value',
    );
    await neverReaches(
      { filters: [{ field: 'price', op: 'eq', value: '1e5' }] },
      'filters[0].value',
    );
    await neverReaches(
      { filters: [{ field: 'id', op: 'eq', value: '9223372036854775808' }] },
      'filters[0].value',
    );
    await neverReaches({ filters: [{ field: 'id', op: 'eq', value: 1.5 }] }, 'filters[0].value');
    await neverReaches(
      { filters: [{ field: 'id', op: 'between', value: [5, 1] }] },
      'filters[0].value',
    );
    await neverReaches(
      { filters: [{ field: 'name', op: 'eq', value: 'nul\u0000byte' }] },
      'filters[0].value',
    );
  });

  it('hostile - 64-bit keys and decimals compare exactly (the server would compare strings as doubles)', async () => {
    // 9007199254740993 and 9007199254740992 are the same double.
    const near = await call('search', {
      filters: [{ field: 'id', op: 'eq', value: '9007199254740992' }],
    });
    expect(near.data).toEqual([]);
    const exact = await call('get', { id: '9007199254740993' });
    expect(exact.data).toMatchObject({ id: '9007199254740993', price: '0.01' });
    const cents = await call('count', { filters: [{ field: 'price', op: 'eq', value: '0.01' }] });
    expect(cents.data).toEqual({ count: 1 });
    const sorted = await call('search', {
      fields: ['id', 'price', 'score'],
      sort: [{ field: 'score', order: 'asc' }],
    });
    // Nulls last ascending, as on every server.
    expect((sorted.data as Array<{ id: string }>).map((r) => r.id)).toEqual([
      '9007199254740993',
      '1',
      '2',
      '3',
    ]);
    expect(sorted.data).toContainEqual({ id: '3', price: '30.00', score: null });
  });

  it('hostile - the row filter holds whatever the filters say', async () => {
    const result = await call('search', {
      filters: [{ field: 'name', op: 'prefix', value: '100' }],
    });
    expect((result.data as Array<{ id: string }>).map((r) => r.id).sort()).toEqual(['1', '2']);
    await expect(call('get', { id: 4 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('hostile - read sessions are read-only at the server, whatever statement arrives', async () => {
    const text = `UPDATE \`${database}\`.items SET name = 'pwned' WHERE id = 1`;
    await expect(
      executeMysql(
        { mode: 'read', result: 'rows', statement: { text, values: [] }, columns: [] },
        {
          poolKey: 'hostile_items',
          resource: 'hostile_items',
          connection: spec.connection,
          credentials: testCredentials,
          maxAttempts: 1,
        },
      ),
    ).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/read-only/) as unknown,
    });
    const [row] = await rowsOf<{ name: string }>(
      db,
      `SELECT name FROM \`${database}\`.items WHERE id = 1`,
    );
    expect(row?.name).toBe('100%_off');
  });

  it('hostile - a statement past the resource timeout is stopped by the server', async () => {
    const started = Date.now();
    await expect(
      executeMysql(
        {
          mode: 'read',
          result: 'rows',
          statement: { text: 'SELECT SLEEP(?) AS s', values: [10] },
          columns: [],
        },
        {
          poolKey: 'hostile_items',
          resource: 'hostile_items',
          connection: spec.connection,
          credentials: testCredentials,
          maxAttempts: 1,
          deadline: Date.now() + 1000,
        },
      ),
    ).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
