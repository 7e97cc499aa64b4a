/**
 * The hostile table: every attack either never reaches PostgreSQL (proven by the role's
 * pg_stat_statements counters staying put) or reaches it only as a bind parameter (proven by
 * the server's statement log: the statement text holds `$n`, the value only the DETAIL line).
 */
import { statSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionSet } from '@tollgate/core';
import type { SqlResourceSpec } from '@tollgate/connector-sql';

import { executePg } from '../src/execute/execute.js';
import { closePools } from '../src/execute/pools.js';
import { callPostgres, compilePostgres, discovered } from './harness.js';
import {
  admin,
  createLogin,
  dropAll,
  logLinesOf,
  serverLogPath,
  serverOf,
  statementsOf,
  testCredentials,
  unique,
} from './support.js';

const db = admin();
const schema = unique('hostile');
const role = unique('tg_hostile');
const HOSTILE_COLUMN = 'a"; DROP TABLE items; --';
const HOMOGLYPH = 'emaіl'; // Cyrillic і (U+0456), not declared
const principal = { tenant: 'alpha', agent: 'hostile' };
let spec: SqlResourceSpec;
let logPath: string;

const permissions: PermissionSet = {
  operations: ['search', 'get', 'count', 'aggregate'],
  visibleFields: ['email', 'id', 'name', 'price', 'score', HOSTILE_COLUMN],
  filterableFields: ['id', 'name', 'price', 'score', HOSTILE_COLUMN],
  limitCap: 50,
};
const call = (operation: string, args: unknown) =>
  callPostgres('hostile_items', spec, permissions, principal, testCredentials, operation, args);
const calls = async (): Promise<number> =>
  (await statementsOf(db, role)).reduce((sum, s) => sum + s.calls, 0);

/** Compiling `args` throws ARGUMENTS_INVALID at `path`, and PostgreSQL sees no statement at all. */
async function neverReaches(args: unknown, path: string, operation = 'search'): Promise<void> {
  const before = await calls();
  expect(() =>
    compilePostgres(operation, args, { resource: 'hostile_items', spec, permissions, principal }),
  ).toThrow(
    expect.objectContaining({
      code: 'ARGUMENTS_INVALID',
      details: expect.arrayContaining([expect.objectContaining({ path })]) as unknown,
    }),
  );
  expect(await calls()).toBe(before);
}

beforeAll(async () => {
  await db.query(`CREATE SCHEMA ${schema}`);
  await db.query(`CREATE TABLE ${schema}.items (
    id bigint PRIMARY KEY, tenant text NOT NULL, name text NOT NULL,
    "a""; DROP TABLE items; --" text, "${HOMOGLYPH}" text, email text,
    price numeric(8,2), score double precision, secret text)`);
  await db.query(`INSERT INTO ${schema}.items VALUES
    (1, 'alpha', '100%_off', 'q1', 'x@evil', 'a@example.com', 10.50, 1.5, 's1'),
    (2, 'alpha', '100xyz', 'q2', null, 'b@example.com', 20.00, 'NaN', 's2'),
    (3, 'alpha', 'O''Brien; DROP TABLE items; --', 'q3', null, 'c@example.com', 30.00, 'Infinity', 's3'),
    (4, 'beta', '100%_beta', 'q4', null, 'd@example.com', 40.00, 4, 's4')`);
  await createLogin(db, role, schema, 'TG_HOSTILE_PG', { logged: true });
  const connection = { ...serverOf(), credentialRef: 'env://TG_HOSTILE_PG', timeoutMs: 3000 };
  const target = { schema, table: 'items' };
  const bare: SqlResourceSpec = {
    type: 'postgres',
    connection,
    target,
    schema: { fields: {} },
    access: { allowedRoles: ['r1'] },
  };
  const found = await discovered(bare, testCredentials);
  const typeOf = (name: string) =>
    found.schema.fields.find((f) => f.path === name)?.type ?? 'string';
  const declared = Object.fromEntries(
    ['id', 'name', 'price', 'score', 'email', HOSTILE_COLUMN].map((name) => [
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
  logPath = await serverLogPath(db);
});

afterAll(async () => {
  await closePools();
  await dropAll(db, schema, [role]);
  await db.end();
});

describe('postgres hostile table', () => {
  it('hostile - quotes, statement breaks, comments and pg_sleep travel only as bind parameters', async () => {
    const from = statSync(logPath).size;
    const values = [
      "x'; DROP TABLE items; --",
      'x/* comment */',
      '1); SELECT pg_sleep(5); --',
      "O'Brien; DROP TABLE items; --",
    ];
    for (const value of values) {
      const result = await call('search', { filters: [{ field: 'name', op: 'eq', value }] });
      expect(result.data).toEqual(
        value.startsWith("O'Brien") ? [expect.objectContaining({ id: '3', name: value })] : [],
      );
    }
    const contains = await call('search', {
      filters: [{ field: 'name', op: 'contains', value: 'pg_sleep(5)' }],
    });
    expect(contains.data).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the log is written asynchronously
    const lines = logLinesOf(logPath, from, role);
    const statements = lines.filter((l) => /LOG: {2}(execute|statement)/.test(l));
    const details = lines.filter((l) => l.includes('DETAIL:  parameters:'));
    expect(statements.length).toBeGreaterThanOrEqual(5);
    for (const line of statements) {
      expect(line).toMatch(/\$1/);
      expect(line).not.toMatch(/DROP TABLE items; --'|pg_sleep|comment \*\/|O''Brien/);
    }
    for (const value of values)
      expect(details.some((l) => l.includes(value.replace(/'/g, "''")))).toBe(true);
    // The declared column `a"; DROP TABLE items; --` is an identifier and may appear, quoted.
    expect(
      (await statementsOf(db, role)).some((s) =>
        /pg_sleep|O''Brien|DROP TABLE items; --'|comment \*\//i.test(s.query),
      ),
    ).toBe(false);
    expect((await db.query(`SELECT count(*)::int AS n FROM ${schema}.items`)).rows[0].n).toBe(4);
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
  });

  it('hostile - a declared column named like an injection is quoted by the driver and works', async () => {
    const result = await call('search', {
      filters: [{ field: HOSTILE_COLUMN, op: 'eq', value: 'q2' }],
      fields: [HOSTILE_COLUMN, 'id'],
    });
    expect(result.data).toEqual([{ id: '2', [HOSTILE_COLUMN]: 'q2' }]);
    expect(
      (await db.query(`SELECT to_regclass('${schema}.items') IS NOT NULL AS ok`)).rows[0].ok,
    ).toBe(true);
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
    await neverReaches(
      { sort: [{ field: 'id; SELECT pg_sleep(5)', order: 'asc' }] },
      'sort[0].field',
    );
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

  it('hostile - non-finite floats come back as strings, exact decimals and 64-bit keys as strings', async () => {
    const result = await call('search', {
      fields: ['id', 'price', 'score'],
      sort: [{ field: 'id', order: 'asc' }],
    });
    expect(result.data).toEqual([
      { id: '1', price: '10.50', score: 1.5 },
      { id: '2', price: '20.00', score: 'NaN' },
      { id: '3', price: '30.00', score: 'Infinity' },
    ]);
    const big = await call('search', {
      filters: [{ field: 'id', op: 'eq', value: '9223372036854775807' }],
    });
    expect(big.data).toEqual([]);
  });

  it('hostile - the row filter holds whatever the filters say', async () => {
    const result = await call('search', {
      filters: [{ field: 'name', op: 'prefix', value: '100' }],
    });
    expect((result.data as Array<{ id: string }>).map((r) => r.id).sort()).toEqual(['1', '2']);
    await expect(call('get', { id: 4 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('hostile - read sessions are read-only at the server, whatever statement arrives', async () => {
    const text = `UPDATE ${schema}.items SET name = 'pwned' WHERE id = 1`;
    await expect(
      executePg(
        { mode: 'read', result: 'rows', statement: { text, values: [] }, columns: [] },
        {
          poolKey: 'hostile_items',
          resource: 'hostile_items',
          connection: spec.connection,
          credentials: testCredentials,
          maxAttempts: 1,
        },
      ),
    ).rejects.toMatchObject({ code: 'INTERNAL' });
    expect((await db.query(`SELECT name FROM ${schema}.items WHERE id = 1`)).rows[0].name).toBe(
      '100%_off',
    );
  });
});
