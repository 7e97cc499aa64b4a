import { describe, expect, it } from 'vitest';
import { encodeCursor } from '@tollgate/core';
import type { CompiledRequest } from '@tollgate/core';

import { compileRequest } from '../src/compile/compile.js';
import type { EsSearchRequest } from '../src/native.js';
import { shapeResult } from '../src/shape/shape.js';
import { context } from './fixtures.js';

const ARGS = {
  filters: [{ field: 'status', op: 'eq', value: 'paid' }],
  sort: [{ field: 'amount', order: 'desc' }],
  limit: 2,
};

function compile(args: unknown, ctx = context()): CompiledRequest<EsSearchRequest> {
  return compileRequest('search', args, ctx) as CompiledRequest<EsSearchRequest>;
}

/** The cursor shaping issues after a full page whose last row sorts at `after`. */
function cursorAfter(request: CompiledRequest<EsSearchRequest>, after: unknown[]): string {
  const hits = [
    { _id: 'a', _source: {}, sort: [30, 7] },
    { _id: 'b', _source: {}, sort: after },
  ];
  const ctx = context();
  const shaped = shapeResult(
    'search',
    {
      status: 200,
      body: { hits: { total: { value: 9, relation: 'eq' }, hits } },
      attempts: 1,
      latencyMs: 1,
    },
    {
      descriptor: ctx.descriptor,
      permissions: ctx.permissions,
      request,
    },
  );
  expect(shaped.cursor).toEqual(expect.any(String));
  return shaped.cursor as string;
}

function cursorRejection(args: unknown, ctx = context()): unknown {
  try {
    compile(args, ctx);
  } catch (err) {
    return err;
  }
  throw new Error('expected the cursor to be rejected');
}

describe('compile cursor', () => {
  it('cursor - round-trips the last sort values into search_after', () => {
    const first = compile(ARGS);
    const cursor = cursorAfter(first, [20, 11]);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const next = compile({ ...ARGS, cursor });
    expect(next.native.body.search_after).toEqual([20, 11]);
    expect(next.page).toEqual({ ...first.page, continued: true });
    const { search_after: _after, ...rest } = next.native.body;
    expect(rest).toEqual(first.native.body);
  });

  it('cursor - page size may change between pages', () => {
    const cursor = cursorAfter(compile(ARGS), [20, 11]);
    expect(compile({ ...ARGS, limit: 5, cursor }).native.body.search_after).toEqual([20, 11]);
  });

  it('cursor - a tampered position is rejected', () => {
    const cursor = cursorAfter(compile(ARGS), [20, 11]);
    const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      after: unknown[];
    };
    payload.after = [0, 0];
    const tampered = Buffer.from(JSON.stringify(payload)).toString('base64url');
    expect(cursorRejection({ ...ARGS, cursor: tampered })).toMatchObject({
      code: 'ARGUMENTS_INVALID',
      details: [
        {
          path: 'cursor',
          message:
            'cursor belongs to a different query (filters, fields or sort changed) or was altered; repeat the original query or omit the cursor',
          expected: 'a cursor returned by the same query',
        },
      ],
    });
  });

  it.each([
    ['other filters', { ...ARGS, filters: [{ field: 'status', op: 'eq', value: 'open' }] }],
    ['other fields', { ...ARGS, fields: ['id'] }],
    ['another sort', { ...ARGS, sort: [{ field: 'amount', order: 'asc' }] }],
  ])('cursor - a cursor from a query with %s is rejected', (_name, other) => {
    const cursor = cursorAfter(compile(ARGS), [20, 11]);
    expect(cursorRejection({ ...other, cursor })).toMatchObject({
      code: 'ARGUMENTS_INVALID',
      details: [{ path: 'cursor' }],
    });
  });

  it('cursor - a cursor from another tenant is rejected (the row filter is part of the query)', () => {
    const cursor = cursorAfter(compile(ARGS), [20, 11]);
    const otherTenant = context({ principal: { tenant: 'team-b', agent: 'support_bot' } });
    expect(cursorRejection({ ...ARGS, cursor }, otherTenant)).toMatchObject({
      code: 'ARGUMENTS_INVALID',
    });
  });

  it('cursor - a cursor sealed with another key is rejected', () => {
    const cursor = cursorAfter(compile(ARGS), [20, 11]);
    expect(
      cursorRejection({ ...ARGS, cursor }, context({ cursorKey: 'another-key' })),
    ).toMatchObject({ code: 'ARGUMENTS_INVALID' });
  });

  it.each([
    ['garbage', 'not a cursor!'],
    ['base64 of non-JSON', Buffer.from('hello').toString('base64url')],
    ['wrong arity', encodeCursor([1], 'seal')],
    [
      'an object position',
      Buffer.from(JSON.stringify({ v: 1, after: [{ script: 1 }, 1], sig: 'x' })).toString(
        'base64url',
      ),
    ],
    ['an oversized cursor', 'A'.repeat(5000)],
  ])('cursor - %s is rejected as not issued by this tool', (_name, cursor) => {
    expect(cursorRejection({ ...ARGS, cursor })).toMatchObject({
      code: 'ARGUMENTS_INVALID',
      details: [
        {
          path: 'cursor',
          message: 'cursor is not one this tool issued; omit it to start from the first page',
        },
      ],
    });
  });

  it('cursor - a non-string cursor is an argument error', () => {
    expect(cursorRejection({ ...ARGS, cursor: 5 })).toMatchObject({
      details: [
        {
          path: 'cursor',
          message: 'expected a cursor string from a previous page',
          expected: 'string',
          found: '5',
        },
      ],
    });
  });
});
