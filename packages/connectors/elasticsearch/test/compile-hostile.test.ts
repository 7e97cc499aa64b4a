import { describe, expect, it } from 'vitest';
import { TollgateError } from '@tollgate/core';
import type { ErrorDetail } from '@tollgate/core';

import { compileRequest } from '../src/compile/compile.js';
import { context } from './fixtures.js';

const FILTERABLE =
  'one of: amount, client_ip, created_at, customer.name, email, id, note, paid, quantity, status, tenant_id';

function rejection(
  operation: 'search' | 'get' | 'count' | 'aggregate' | 'write',
  args: unknown,
): ErrorDetail[] {
  try {
    compileRequest(operation, args, context());
  } catch (err) {
    expect(err).toBeInstanceOf(TollgateError);
    expect((err as TollgateError).code).toBe('ARGUMENTS_INVALID');
    expect((err as TollgateError).category).toBe('fix_arguments');
    return (err as TollgateError).details;
  }
  throw new Error('expected the arguments to be rejected');
}

describe('compile hostile arguments', () => {
  it.each(['internal_note', '_source', '*', 'user.*', '__proto__', 'risk_score', 'card'])(
    'compile - filtering on %s outside the filterable set is rejected',
    (field) => {
      expect(rejection('search', { filters: [{ field, op: 'eq', value: 'x' }] })).toEqual([
        {
          path: 'filters[0].field',
          message: `field "${field}" is not filterable`,
          expected: FILTERABLE,
          found: JSON.stringify(field),
        },
      ]);
    },
  );

  it('compile - a filter entry built with an own __proto__ key is rejected, not merged', () => {
    const filter = JSON.parse(
      '{"field":"status","op":"eq","value":"x","__proto__":{"op":"match"}}',
    ) as unknown;
    expect(rejection('search', { filters: [filter] })).toEqual([
      {
        path: 'filters[0].__proto__',
        message: 'unknown argument "__proto__"',
        expected: 'one of: field, op, value',
        found: '"__proto__"',
      },
    ]);
  });

  const ops: Array<[string, string, string]> = [
    ['status', 'match', 'one of: eq, in, exists'],
    ['status', 'gt', 'one of: eq, in, exists'],
    ['amount', 'in', 'one of: eq, gt, gte, lt, lte, between'],
    ['amount', 'match', 'one of: eq, gt, gte, lt, lte, between'],
    ['note', 'eq', 'one of: match'],
    ['paid', 'in', 'one of: eq'],
    ['status', 'regexp', 'one of: eq, in, exists'],
    ['status', 'script', 'one of: eq, in, exists'],
  ];
  it.each(ops)('compile - %s does not admit op %s', (field, op, expected) => {
    const type = { status: 'keyword', amount: 'double', note: 'text', paid: 'boolean' }[field];
    expect(rejection('search', { filters: [{ field, op, value: 'x' }] })).toEqual([
      {
        path: 'filters[0].op',
        message: `op "${op}" is not allowed on ${type} field "${field}"`,
        expected,
        found: JSON.stringify(op),
      },
    ]);
  });

  const values: Array<[string, unknown, ErrorDetail]> = [
    [
      'a script object as value',
      { field: 'status', op: 'eq', value: { script: { source: 'x' } } },
      {
        path: 'filters[0].value',
        message: 'expected string of at most 256 characters',
        expected: 'string of at most 256 characters',
        found: 'object',
      },
    ],
    [
      'a huge string',
      { field: 'status', op: 'eq', value: 'a'.repeat(300) },
      {
        path: 'filters[0].value',
        message: 'string is 300 characters; at most 256 allowed',
        expected: 'string of at most 256 characters',
        found: `"${'a'.repeat(64)}…" (300 characters)`,
      },
    ],
    [
      'deeply nested arrays in in',
      { field: 'status', op: 'in', value: [[['paid']]] },
      {
        path: 'filters[0].value[0]',
        message: 'expected string of at most 256 characters',
        expected: 'string of at most 256 characters',
        found: 'array of 1',
      },
    ],
    [
      'more than 100 values in in',
      { field: 'status', op: 'in', value: Array.from({ length: 101 }, (_v, i) => `s${i}`) },
      {
        path: 'filters[0].value',
        message: 'expected an array of 1 to 100 values, got 101',
        expected: 'array of 1 to 100 values',
        found: 'array of 101',
      },
    ],
    [
      'a number for a keyword',
      { field: 'status', op: 'eq', value: 5 },
      {
        path: 'filters[0].value',
        message: 'expected string of at most 256 characters',
        expected: 'string of at most 256 characters',
        found: '5',
      },
    ],
    [
      'a string for a double',
      { field: 'amount', op: 'gt', value: '10' },
      {
        path: 'filters[0].value',
        message: 'expected finite number',
        expected: 'finite number',
        found: '"10"',
      },
    ],
    [
      'a fraction for an integer',
      { field: 'quantity', op: 'gte', value: 1.5 },
      {
        path: 'filters[0].value',
        message: 'expected integer from -2147483648 to 2147483647',
        expected: 'integer from -2147483648 to 2147483647',
        found: '1.5',
      },
    ],
    [
      'a non ISO date',
      { field: 'created_at', op: 'gt', value: 'now-1d' },
      {
        path: 'filters[0].value',
        message: 'expected ISO-8601 date or date-time, e.g. 2024-05-01T00:00:00Z',
        expected: 'ISO-8601 date or date-time, e.g. 2024-05-01T00:00:00Z',
        found: '"now-1d"',
      },
    ],
    [
      'an impossible date',
      { field: 'created_at', op: 'gt', value: '2024-02-30' },
      {
        path: 'filters[0].value',
        message: 'expected ISO-8601 date or date-time, e.g. 2024-05-01T00:00:00Z',
        expected: 'ISO-8601 date or date-time, e.g. 2024-05-01T00:00:00Z',
        found: '"2024-02-30"',
      },
    ],
    [
      'a string for a boolean',
      { field: 'paid', op: 'eq', value: 'true' },
      {
        path: 'filters[0].value',
        message: 'expected boolean',
        expected: 'boolean',
        found: '"true"',
      },
    ],
    [
      'a hostname for an ip',
      { field: 'client_ip', op: 'eq', value: 'example.com' },
      {
        path: 'filters[0].value',
        message: 'expected IPv4 or IPv6 address',
        expected: 'IPv4 or IPv6 address',
        found: '"example.com"',
      },
    ],
    [
      'between with one bound',
      { field: 'amount', op: 'between', value: [1] },
      {
        path: 'filters[0].value',
        message: 'expected an array of exactly 2 values, got 1',
        expected: 'array of exactly 2 values',
        found: 'array of 1',
      },
    ],
    [
      'between reversed',
      { field: 'amount', op: 'between', value: [5, 1] },
      {
        path: 'filters[0].value',
        message: 'lower bound is greater than upper bound',
        expected: '[low, high] with low <= high',
        found: 'array of 2',
      },
    ],
    [
      'exists with a value',
      { field: 'email', op: 'exists', value: 'x' },
      {
        path: 'filters[0].value',
        message: 'exists takes no value',
        expected: 'null',
        found: '"x"',
      },
    ],
  ];
  it.each(values)('compile - %s is rejected with an exact detail', (_name, filter, detail) => {
    expect(rejection('search', { filters: [filter] })).toEqual([detail]);
  });

  it.each([1e9, 0, -1, 2.5, '10', 51])('compile - limit %s is rejected, not clamped', (limit) => {
    expect(rejection('search', { limit })).toEqual([
      {
        path: 'limit',
        message: 'limit must be an integer from 1 to 50',
        expected: 'integer from 1 to 50',
        found: typeof limit === 'string' ? `"${limit}"` : String(limit),
      },
    ]);
  });

  it('compile - unknown top-level arguments such as query or script are rejected', () => {
    expect(rejection('search', { query: { match_all: {} }, script: 'x' })).toEqual([
      {
        path: 'query',
        message: 'unknown argument "query"',
        expected: 'one of: filters, fields, sort, limit, cursor',
        found: '"query"',
      },
      {
        path: 'script',
        message: 'unknown argument "script"',
        expected: 'one of: filters, fields, sort, limit, cursor',
        found: '"script"',
      },
    ]);
  });

  it('compile - every violation of one call is reported at once', () => {
    const details = rejection('search', {
      filters: [
        { field: 'internal_note', op: 'eq', value: 'x' },
        { field: 'status', op: 'eq', value: 1 },
      ],
      fields: ['internal_note', '*'],
      sort: [
        { field: 'note', order: 'asc' },
        { field: 'id', order: 'sideways' },
      ],
      limit: 1e9,
    });
    expect(details.map((detail) => detail.path)).toEqual([
      'filters[0].field',
      'filters[1].value',
      'fields[0]',
      'fields[1]',
      'sort[0].field',
      'sort[1].order',
      'limit',
    ]);
  });

  it('compile - non-object arguments and non-array filters are rejected', () => {
    expect(rejection('search', 'filters=*')).toEqual([
      {
        path: '(arguments)',
        message: 'expected an object',
        expected: 'object',
        found: '"filters=*"',
      },
    ]);
    expect(rejection('search', { filters: { field: 'status' } })).toEqual([
      {
        path: 'filters',
        message: 'expected an array of filters',
        expected: 'array',
        found: 'object',
      },
    ]);
  });

  it('compile - more than 20 filters are rejected', () => {
    const filters = Array.from({ length: 21 }, () => ({ field: 'status', op: 'eq', value: 'x' }));
    expect(rejection('count', { filters })[0]).toMatchObject({
      path: 'filters',
      message: 'at most 20 filters allowed',
    });
  });

  it('compile - fields outside the visible set are rejected', () => {
    expect(rejection('search', { fields: ['risk_score'] })).toEqual([
      {
        path: 'fields[0]',
        message: 'field "risk_score" is not returnable',
        expected:
          'one of: amount, card, client_ip, created_at, customer.name, customer.tier, email, id, note, paid, quantity, status, tenant_id, user_ref',
        found: '"risk_score"',
      },
    ]);
  });

  it('compile - sorting on text or undeclared-sortable fields is rejected', () => {
    expect(rejection('search', { sort: [{ field: 'note', order: 'asc' }] })).toEqual([
      {
        path: 'sort[0].field',
        message: 'field "note" is not sortable',
        expected: 'one of: amount, created_at, id, status',
        found: '"note"',
      },
    ]);
  });
});
