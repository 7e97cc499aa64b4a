import { describe, expect, it } from 'vitest';
import type { SqlResourceSpec } from '@tollgate/connector-sql';

import { mysqlColumnType } from '../src/index.js';
import { compileMysql } from './harness.js';

const spec: SqlResourceSpec = {
  type: 'mysql',
  connection: { host: '127.0.0.1', database: 'shop' },
  target: { table: 'orders' },
  schema: {
    fields: {
      id: {
        type: 'integer',
        filterable: true,
        returnable: true,
        sortable: true,
        column: { native: 'bigint(20)', bits: 64, nullable: false, primaryKey: 1 },
      },
      tenant: { type: 'string', column: { native: 'varchar(16)', nullable: false } },
      name: {
        type: 'string',
        filterable: true,
        returnable: true,
        searchable: true,
        sortable: true,
        column: { native: 'varchar(100)', nullable: true },
      },
      code: {
        type: 'string',
        filterable: true,
        searchable: true,
        column: { native: 'varchar(20) COLLATE utf8mb4_bin', nullable: false },
      },
      total: {
        type: 'decimal',
        filterable: true,
        range: true,
        returnable: true,
        column: { native: 'decimal(12,2)', precision: 12, scale: 2, nullable: true },
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
    visibleFields: ['id', 'name', 'total'],
    filterableFields: ['id', 'name', 'code', 'total'],
    limitCap: 50,
  },
  principal: { tenant: 'alpha', agent: 'a' },
};

describe('mysql compile', () => {
  it('compile - ? placeholders follow the text: the row filter first, though bound last', () => {
    const compiled = compileMysql(
      'search',
      {
        filters: [
          { field: 'name', op: 'prefix', value: "50%_o'k" },
          { field: 'total', op: 'gte', value: '10.50' },
          { field: 'id', op: 'eq', value: '9007199254740993' },
        ],
        sort: [{ field: 'name', order: 'asc' }],
        limit: 5,
      },
      call,
    );
    expect(compiled.native).toMatchObject({
      statement: {
        text:
          'SELECT `id`, `name`, `total`, `name` AS `__k0`, `id` AS `__k1` FROM `orders` WHERE `tenant` = ? ' +
          "AND `name` LIKE ? ESCAPE '!' AND `total` >= CAST(? AS DECIMAL(12,2)) " +
          'AND `id` = CAST(? AS SIGNED) ' +
          'ORDER BY `name` IS NULL ASC, `name` ASC, `id` ASC LIMIT 6',
        values: ['alpha', "50!%!_o'k%", '10.50', '9007199254740993'],
      },
    });
  });

  it('compile - a collation that tells case apart is searched lower-cased on both sides', () => {
    const compiled = compileMysql(
      'count',
      { filters: [{ field: 'code', op: 'contains', value: 'AbC' }] },
      call,
    );
    expect(compiled.native).toMatchObject({
      statement: {
        text: "SELECT COUNT(*) AS `count` FROM (SELECT 1 FROM `orders` WHERE `tenant` = ? AND LOWER(`code`) LIKE LOWER(?) ESCAPE '!' LIMIT 10001) AS `matched`",
        values: ['alpha', '%AbC%'],
      },
    });
  });

  it('compile - a declared name is quoted whole: backticks doubled, a dot kept in the name', () => {
    const odd = 'a`b.c';
    const compiled = compileMysql(
      'search',
      { fields: [odd] },
      {
        ...call,
        spec: {
          ...spec,
          schema: {
            fields: {
              ...spec.schema.fields,
              [odd]: { type: 'string', returnable: true, column: { native: 'text' } },
            },
          },
        },
        permissions: { ...call.permissions, visibleFields: [odd] },
      },
    );
    expect((compiled.native as { statement: { text: string } }).statement.text).toMatch(
      /^SELECT `a``b\.c`, `id` AS `__k0` FROM `orders`/,
    );
  });

  it('types - booleans, unsigned integers, enums and MariaDB JSON map faithfully', () => {
    expect(mysqlColumnType({ dataType: 'tinyint', columnType: 'tinyint(1)' })).toEqual({
      class: 'boolean',
      native: 'tinyint(1)',
    });
    expect(mysqlColumnType({ dataType: 'bigint', columnType: 'bigint(20) unsigned' })).toEqual({
      class: 'integer',
      native: 'bigint(20) unsigned',
      bits: 64,
      unsigned: true,
    });
    expect(
      mysqlColumnType({ dataType: 'enum', columnType: "enum('a','it''s','c\\\\d')" }),
    ).toMatchObject({ class: 'string', enum: ['a', "it's", 'c\\d'] });
    expect(mysqlColumnType({ dataType: 'longtext', columnType: 'longtext', json: true })).toEqual({
      class: 'json',
      native: 'json',
    });
    expect(mysqlColumnType({ dataType: 'geometry', columnType: 'geometry' }).class).toBe('other');
  });
});
