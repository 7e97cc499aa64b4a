import { describe, expect, it } from 'vitest';
import { readCommonMention, readMentionedFields } from '../src/index.js';

describe('mention', () => {
  it('mention - name, credential reference and roles are read once for every kind', () => {
    expect(
      readCommonMention(
        'call it pg_sales, credential env://PG_SHOP; roles support and order_ops, 角色 x',
      ),
    ).toEqual({
      name: 'pg_sales',
      credentialRef: 'env://PG_SHOP',
      roles: ['support', 'order_ops'],
    });
    expect(readCommonMention('find order 12345')).toEqual({});
  });

  it("mention - typed fields use the kind's words; the resource's own parts are never fields", () => {
    const types = { integer: 'integer', int: 'integer', text: 'string' };
    expect(
      readMentionedFields('id is an integer, table is text, n is int, x is blob', types, {
        names: '[a-z_][a-z0-9_]*',
        notFields: ['table'],
      }),
    ).toEqual([
      { name: 'id', type: 'integer' },
      { name: 'n', type: 'integer' },
    ]);
  });

  it('mention - a huge sentence (a quarter megabyte of roles and fields) is read without backtracking (the test timeout is the guard)', () => {
    const text = `roles ${'a1, '.repeat(40_000)}b2; ${'f is text, '.repeat(10_000)}`;
    const read = readCommonMention(text);
    const fields = readMentionedFields(text, { text: 'string' }, { names: '[a-z_][a-z0-9_]*' });
    expect(read.roles?.length).toBe(40_001);
    expect(fields).toHaveLength(10_000);
  });
});
