import { describe, expect, it } from 'vitest';
import { escapeLike, normalizeDatetime, parseEnumValues } from '@tollgate/connector-sql';
import type { SqlResourceSpec } from '@tollgate/connector-sql';

import { pgColumnType } from '../src/index.js';
import { compilePostgres } from './harness.js';

const spec: SqlResourceSpec = {
  type: 'postgres',
  connection: { host: '127.0.0.1', database: 'shop' },
  target: { schema: 'shop', table: 'orders' },
  schema: {
    fields: {
      id: {
        type: 'integer',
        filterable: true,
        returnable: true,
        sortable: true,
        column: { native: 'bigint', bits: 64, nullable: false, primaryKey: 1 },
      },
      tenant: { type: 'string', column: { native: 'text', nullable: false } },
      name: {
        type: 'string',
        filterable: true,
        returnable: true,
        searchable: true,
        column: { native: 'text', nullable: true },
      },
      placed_at: {
        type: 'datetime',
        filterable: true,
        range: true,
        returnable: true,
        sortable: true,
        column: { native: 'timestamptz', timeZone: true, nullable: true },
      },
    },
  },
  access: { allowedRoles: ['r'], rowFilter: { field: 'tenant', equals: 'principal.tenant' } },
};
const call = {
  resource: 'orders',
  spec,
  permissions: {
    operations: ['search', 'get', 'count'],
    visibleFields: ['id', 'name', 'placed_at'],
    filterableFields: ['id', 'name', 'placed_at'],
    limitCap: 50,
  },
  principal: { tenant: 'alpha', agent: 'a' },
};

describe('postgres compile', () => {
  it('compile - a search is one parameterized statement: row filter, filters, keyset order, LIMIT n+1', () => {
    const compiled = compilePostgres(
      'search',
      {
        filters: [{ field: 'name', op: 'prefix', value: "50%_o'k" }],
        sort: [{ field: 'placed_at', order: 'desc' }],
        limit: 5,
      },
      call,
    );
    expect(compiled.native).toMatchObject({
      statement: {
        text: 'SELECT "id", "name", "placed_at", "placed_at" AS "__k0", "id" AS "__k1" FROM "shop"."orders" WHERE "tenant" = $1 AND "name" ILIKE $2 ESCAPE \'!\' ORDER BY "placed_at" DESC, "id" ASC LIMIT 6',
        values: ['alpha', "50!%!_o'k%"],
      },
    });
  });

  it('compile - a get by a 64-bit key binds the key as a string', () => {
    const compiled = compilePostgres('get', { id: '9223372036854775807' }, call);
    expect(compiled.native).toMatchObject({
      statement: {
        text: 'SELECT "id", "name", "placed_at" FROM "shop"."orders" WHERE "tenant" = $1 AND "id" = $2 LIMIT 1',
        values: ['alpha', '9223372036854775807'],
      },
    });
  });

  it('compile - writes are refused on a read-only resource', () => {
    expect(() => compilePostgres('insert', { values: { name: 'x' } }, call)).toThrow(
      expect.objectContaining({ code: 'POLICY_DENIED' }),
    );
  });

  it('compile - a principal without the row-filter attribute is denied', () => {
    expect(() =>
      compilePostgres('search', {}, { ...call, principal: { tenant: '', agent: 'a' } }),
    ).toThrow(expect.objectContaining({ code: 'POLICY_DENIED' }));
  });

  it('values - LIKE escaping, date-times to UTC, enum parsing', () => {
    expect(escapeLike('a!b%c_d')).toBe('a!!b!%c!_d');
    expect(
      normalizeDatetime('2024-05-01T02:30:00.5+02:30', {
        class: 'datetime',
        native: 'timestamptz',
        timeZone: true,
      }),
    ).toBe('2024-05-01 00:00:00.500000');
    expect(
      normalizeDatetime('2024-02-30T00:00:00Z', {
        class: 'datetime',
        native: 'timestamptz',
        timeZone: true,
      }),
    ).toBeUndefined();
    expect(
      normalizeDatetime('2024-05-01T00:00:00Z', {
        class: 'datetime',
        native: 'timestamp',
        timeZone: false,
      }),
    ).toBeUndefined();
    expect(parseEnumValues("enum('a','it''s','c,d')")).toEqual(['a', "it's", 'c,d']);
  });

  it('types - PostgreSQL types map to classes with their bounds', () => {
    expect(pgColumnType({ formatted: 'numeric(12,2)', typname: 'numeric', typtype: 'b' })).toEqual({
      class: 'decimal',
      native: 'numeric(12,2)',
      precision: 12,
      scale: 2,
    });
    expect(pgColumnType({ formatted: 'smallint', typname: 'int2', typtype: 'b' })).toEqual({
      class: 'integer',
      native: 'smallint',
      bits: 16,
    });
    expect(
      pgColumnType({
        formatted: 'timestamp without time zone',
        typname: 'timestamp',
        typtype: 'b',
      }),
    ).toEqual({ class: 'datetime', native: 'timestamp without time zone', timeZone: false });
    expect(pgColumnType({ formatted: 'inet', typname: 'inet', typtype: 'b' })).toEqual({
      class: 'other',
      native: 'inet',
    });
  });
});
