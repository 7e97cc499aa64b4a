import { describe, expect, it } from 'vitest';

import { compileRequest } from '../src/compile/compile.js';
import type { EsSearchRequest } from '../src/native.js';
import { context, TEAM_A } from './fixtures.js';

const VISIBLE = [
  'amount',
  'card',
  'client_ip',
  'created_at',
  'customer.name',
  'customer.tier',
  'email',
  'id',
  'note',
  'paid',
  'quantity',
  'status',
  'tenant_id',
  'user_ref',
];

function search(args: unknown): EsSearchRequest {
  return compileRequest('search', args, context()).native as EsSearchRequest;
}

describe('compile search', () => {
  it('compile - empty search pins the row filter, returns visible fields, default limit and _doc order', () => {
    const request = compileRequest('search', {}, context());
    expect(request).toEqual({
      kind: 'elasticsearch',
      operation: 'search',
      resource: 'es_orders',
      timeoutMs: 2000,
      idempotent: true,
      fields: VISIBLE,
      page: { limit: 10, sortKeys: 1, seal: expect.any(String) as string, continued: false },
      native: {
        api: 'search',
        index: 'orders',
        body: {
          query: { bool: { filter: [TEAM_A] } },
          _source: { includes: VISIBLE },
          size: 10,
          sort: [{ _doc: { order: 'asc' } }],
          track_total_hits: 10000,
        },
      },
    });
    expect(JSON.parse(JSON.stringify(request))).toEqual(request);
  });

  const table: Array<[string, unknown, unknown]> = [
    [
      'keyword eq',
      { field: 'status', op: 'eq', value: 'paid' },
      { term: { status: { value: 'paid' } } },
    ],
    [
      'keyword in',
      { field: 'status', op: 'in', value: ['paid', 'open'] },
      { terms: { status: ['paid', 'open'] } },
    ],
    [
      'keyword exists',
      { field: 'email', op: 'exists', value: null },
      { exists: { field: 'email' } },
    ],
    [
      'keyword exists without value',
      { field: 'email', op: 'exists' },
      { exists: { field: 'email' } },
    ],
    [
      'dotted keyword eq',
      { field: 'customer.name', op: 'eq', value: 'Ann' },
      { term: { 'customer.name': { value: 'Ann' } } },
    ],
    [
      'double eq',
      { field: 'amount', op: 'eq', value: 12.5 },
      { term: { amount: { value: 12.5 } } },
    ],
    ['double gt', { field: 'amount', op: 'gt', value: 10 }, { range: { amount: { gt: 10 } } }],
    ['double gte', { field: 'amount', op: 'gte', value: 10 }, { range: { amount: { gte: 10 } } }],
    ['double lt', { field: 'amount', op: 'lt', value: 10 }, { range: { amount: { lt: 10 } } }],
    ['double lte', { field: 'amount', op: 'lte', value: 10 }, { range: { amount: { lte: 10 } } }],
    [
      'double between',
      { field: 'amount', op: 'between', value: [1, 2] },
      { range: { amount: { gte: 1, lte: 2 } } },
    ],
    [
      'integer gte',
      { field: 'quantity', op: 'gte', value: 3 },
      { range: { quantity: { gte: 3 } } },
    ],
    [
      'date eq',
      { field: 'created_at', op: 'eq', value: '2024-05-01T00:00:00Z' },
      {
        range: {
          created_at: {
            gte: '2024-05-01T00:00:00Z',
            lte: '2024-05-01T00:00:00Z',
            format: 'strict_date_optional_time',
          },
        },
      },
    ],
    [
      'date gt',
      { field: 'created_at', op: 'gt', value: '2024-05-01' },
      { range: { created_at: { gt: '2024-05-01', format: 'strict_date_optional_time' } } },
    ],
    [
      'date between',
      {
        field: 'created_at',
        op: 'between',
        value: ['2024-05-01T00:00:00+02:00', '2024-06-01T12:30:00.123Z'],
      },
      {
        range: {
          created_at: {
            gte: '2024-05-01T00:00:00+02:00',
            lte: '2024-06-01T12:30:00.123Z',
            format: 'strict_date_optional_time',
          },
        },
      },
    ],
    ['boolean eq', { field: 'paid', op: 'eq', value: false }, { term: { paid: { value: false } } }],
    [
      'ip eq',
      { field: 'client_ip', op: 'eq', value: '10.0.0.1' },
      { term: { client_ip: { value: '10.0.0.1' } } },
    ],
    [
      'ipv6 in',
      { field: 'client_ip', op: 'in', value: ['::1'] },
      { terms: { client_ip: ['::1'] } },
    ],
  ];
  it.each(table)(
    'compile - %s becomes an exact filter clause after the row filter',
    (_name, filter, clause) => {
      expect(search({ filters: [filter] }).body.query).toEqual({
        bool: { filter: [TEAM_A, clause] },
      });
    },
  );

  it('compile - match goes into must and relevance leads the sort', () => {
    const body = search({ filters: [{ field: 'note', op: 'match', value: 'late delivery' }] }).body;
    expect(body.query).toEqual({
      bool: { filter: [TEAM_A], must: [{ match: { note: { query: 'late delivery' } } }] },
    });
    expect(body.sort).toEqual([{ _score: { order: 'desc' } }, { _doc: { order: 'asc' } }]);
  });

  it('compile - values carrying DSL or JSON fragments stay literal strings', () => {
    const hostile = '{"script":{"source":"ctx._source"}}';
    const body = search({
      filters: [
        { field: 'status', op: 'eq', value: hostile },
        { field: 'note', op: 'match', value: 'status:* OR _exists_:internal_note' },
      ],
    }).body;
    expect(body.query.bool.filter[1]).toEqual({ term: { status: { value: hostile } } });
    expect(body.query.bool.must).toEqual([
      { match: { note: { query: 'status:* OR _exists_:internal_note' } } },
    ]);
    expect(JSON.stringify(body)).not.toMatch(
      /query_string|"script"\s*:|regexp|wildcard|prefix|fuzzy|runtime_mappings/,
    );
  });

  it('compile - the row filter stays first even when the agent filters on the same field', () => {
    const body = search({ filters: [{ field: 'tenant_id', op: 'eq', value: 'team-b' }] }).body;
    expect(body.query.bool.filter).toEqual([TEAM_A, { term: { tenant_id: { value: 'team-b' } } }]);
  });

  it('compile - the row filter follows the principal attribute it names', () => {
    const base = context();
    const descriptor = structuredClone(base.descriptor);
    descriptor.spec.access.rowFilter = { field: 'customer.name', equals: 'principal.user' };
    const request = compileRequest('count', {}, { ...base, descriptor });
    expect(request.native).toEqual({
      api: 'count',
      index: 'orders',
      body: { query: { bool: { filter: [{ term: { 'customer.name': { value: 'u-1' } } }] } } },
    });
  });

  it('compile - a row filter on an attribute the principal lacks denies the call', () => {
    const base = context();
    const descriptor = structuredClone(base.descriptor);
    descriptor.spec.access.rowFilter = { field: 'customer.name', equals: 'principal.user' };
    expect(() =>
      compileRequest(
        'search',
        {},
        { ...base, descriptor, principal: { tenant: 'team-a', agent: 'bot' } },
      ),
    ).toThrow(expect.objectContaining({ code: 'POLICY_DENIED' }));
  });

  it('compile - fields narrow _source to requested ∩ visible, sorted and deduplicated', () => {
    const body = search({ fields: ['status', 'id', 'status'] }).body;
    expect(body._source).toEqual({ includes: ['id', 'status'] });
  });

  it('compile - null arguments mean absent', () => {
    expect(search({ filters: null, fields: null, sort: null, limit: null, cursor: null })).toEqual(
      search({}),
    );
  });

  it('compile - sort keys get unmapped_type and a _doc tiebreaker', () => {
    const body = search({
      sort: [
        { field: 'created_at', order: 'desc' },
        { field: 'id', order: 'asc' },
      ],
      limit: 50,
    }).body;
    expect(body.sort).toEqual([
      { created_at: { order: 'desc', unmapped_type: 'date' } },
      { id: { order: 'asc', unmapped_type: 'keyword' } },
      { _doc: { order: 'asc' } },
    ]);
    expect(body.size).toBe(50);
  });
});
