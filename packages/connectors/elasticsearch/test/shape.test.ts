import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';
import { decodeCursor } from '@tollgate/core';
import type { CompiledRequest, Operation, ShapedResult } from '@tollgate/core';

import { compileRequest } from '../src/compile/compile.js';
import { shapeResult } from '../src/shape/shape.js';
import { context } from './fixtures.js';

function shape(
  operation: Operation,
  args: unknown,
  body: unknown,
  maxBytes?: number,
): ShapedResult {
  const ctx = context();
  const request: CompiledRequest = compileRequest(operation, args, ctx);
  return shapeResult(
    operation,
    { status: 200, body, attempts: 1, latencyMs: 3 },
    {
      descriptor: ctx.descriptor,
      permissions: ctx.permissions,
      request,
      ...(maxBytes === undefined ? {} : { maxBytes }),
    },
  );
}

function hit(
  id: string,
  source: Record<string, unknown>,
  sort: unknown[] = [Number(id.slice(1))],
): unknown {
  return { _index: 'orders', _id: id, _score: null, _source: source, sort };
}

const searchBody = (hits: unknown[], total = { value: hits.length, relation: 'eq' }): unknown => ({
  took: 1,
  timed_out: false,
  hits: { total, max_score: null, hits },
});

describe('shape', () => {
  it('shape - only visible fields leave, whatever Elasticsearch returned', () => {
    const result = shape(
      'search',
      {},
      searchBody([
        hit('o1', {
          id: 'o1',
          status: 'paid',
          internal_note: 'do not show',
          risk_score: 99,
          undeclared: 'x',
          customer: { name: 'Ann', tier: 'gold', ssn: '123' },
          'customer.secret': 'literal dotted key',
        }),
      ]),
    );
    expect(result.data).toEqual([
      { _id: 'o1', id: 'o1', status: 'paid', customer: { name: 'Ann', tier: 'gold' } },
    ]);
    expect(result).toMatchObject({
      returned: 1,
      total: { value: 1, relation: 'eq' },
      truncated: false,
    });
    expect(result.cursor).toBeUndefined();
    expect(result.bytes).toBe(Buffer.byteLength(JSON.stringify(result.data)));
  });

  it('shape - requested fields narrow the result further', () => {
    const result = shape(
      'search',
      { fields: ['status'] },
      searchBody([hit('o1', { id: 'o1', status: 'paid' })]),
    );
    expect(result.data).toEqual([{ _id: 'o1', status: 'paid' }]);
  });

  it('shape - the permission set is re-applied even to a request compiled with more fields', () => {
    const ctx = context();
    const request = compileRequest('search', {}, ctx);
    const body = searchBody([hit('o1', { id: 'o1', status: 'paid', amount: 3 })]);
    const result = shapeResult(
      'search',
      { status: 200, body, attempts: 1, latencyMs: 1 },
      {
        descriptor: ctx.descriptor,
        permissions: { ...ctx.permissions, visibleFields: ['id'] },
        request,
      },
    );
    expect(result.data).toEqual([{ _id: 'o1', id: 'o1' }]);
  });

  it('shape - redaction rules mask, keep last 4, hash and drop', () => {
    const result = shape(
      'search',
      {},
      searchBody([
        hit('o1', {
          email: 'ann@example.com',
          card: '4111111111111234',
          user_ref: 'user-42',
          risk_score: 7,
          status: null,
        }),
        hit('o2', { email: ['a@x.io', 'b@x.io'], card: '123', user_ref: 42 }),
      ]),
    );
    const digest = (text: string): string =>
      `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
    expect(result.data).toEqual([
      { _id: 'o1', email: '***', card: '***1234', user_ref: digest('user-42'), status: null },
      { _id: 'o2', email: ['***', '***'], card: '***', user_ref: digest('42') },
    ]);
  });

  it('shape - literal dotted keys in _source are projected like nested ones', () => {
    const result = shape(
      'search',
      {},
      searchBody([hit('o1', { 'customer.name': 'Ann', 'customer.ssn': '1' })]),
    );
    expect(result.data).toEqual([{ _id: 'o1', 'customer.name': 'Ann' }]);
  });

  it('shape - a full page yields a cursor at the last row; a complete first page does not', () => {
    const full = shape(
      'search',
      { limit: 2 },
      searchBody([hit('o1', {}), hit('o2', {})], { value: 5, relation: 'eq' }),
    );
    expect(full.cursor).toEqual(expect.any(String));
    const complete = shape(
      'search',
      { limit: 2 },
      searchBody([hit('o1', {}), hit('o2', {})], { value: 2, relation: 'eq' }),
    );
    expect(complete.cursor).toBeUndefined();
    const short = shape(
      'search',
      { limit: 3 },
      searchBody([hit('o1', {})], { value: 1, relation: 'eq' }),
    );
    expect(short.cursor).toBeUndefined();
  });

  it('shape - totals beyond the tracking cap are reported as a lower bound', () => {
    const result = shape(
      'search',
      { limit: 1 },
      searchBody([hit('o1', {})], { value: 10000, relation: 'gte' }),
    );
    expect(result.total).toEqual({ value: 10000, relation: 'gte' });
    expect(result.cursor).toEqual(expect.any(String));
  });

  it('shape - rows beyond the limit are cut even if Elasticsearch sent them', () => {
    const result = shape(
      'search',
      { limit: 2 },
      searchBody([hit('o1', {}), hit('o2', {}), hit('o3', {})]),
    );
    expect(result.returned).toBe(2);
    expect(result.truncated).toBe(true);
  });

  it('shape - the byte cap drops trailing rows and the cursor continues after the last kept row', () => {
    const ctx = context();
    const request = compileRequest('search', { limit: 10 }, ctx);
    const hits = Array.from({ length: 10 }, (_v, i) =>
      hit(`o${i}`, { note: 'x'.repeat(200) }, [i]),
    );
    const result = shapeResult(
      'search',
      { status: 200, body: searchBody(hits), attempts: 1, latencyMs: 1 },
      {
        descriptor: ctx.descriptor,
        permissions: ctx.permissions,
        request,
        maxBytes: 1000,
      },
    );
    expect(result.returned).toBe(4);
    expect(result.truncated).toBe(true);
    expect(result.bytes).toBeLessThanOrEqual(1000);
    expect(result.bytes).toBe(Buffer.byteLength(JSON.stringify(result.data)));
    const page = request.page as { seal: string };
    expect(decodeCursor(result.cursor as string, page.seal, 1)).toEqual([3]);
  });

  it('shape - the default byte cap is 32 KiB', () => {
    const hits = Array.from({ length: 50 }, (_v, i) =>
      hit(`o${i}`, { note: 'y'.repeat(2000) }, [i]),
    );
    const result = shape('search', { limit: 50 }, searchBody(hits));
    expect(result.truncated).toBe(true);
    expect(result.bytes).toBeLessThanOrEqual(32768);
    expect(result.returned).toBe(16); // 16 rows of ~2 KB fit, a 17th would not
  });

  it.each([
    [
      'a null body',
      null,
      'Elasticsearch returned an unexpected search response: body is not an object.',
    ],
    [
      'no hits',
      { took: 1 },
      'Elasticsearch returned an unexpected search response: hits is not an object.',
    ],
    [
      'hits.hits not an array',
      { hits: { hits: 'x' } },
      'Elasticsearch returned an unexpected search response: hits.hits is not an array.',
    ],
    [
      'a hit without _id',
      { hits: { hits: [{ _source: {} }] } },
      'Elasticsearch returned an unexpected search response: hits.hits[0]._id is not a string.',
    ],
    [
      'a hit without sort values',
      { hits: { hits: [{ _id: 'a', _source: {} }] } },
      'Elasticsearch returned an unexpected search response: hits.hits[0].sort does not hold 1 sort values.',
    ],
    [
      'a _source that is a string',
      { hits: { hits: [{ _id: 'a', _source: 'x', sort: [1] }] } },
      'Elasticsearch returned an unexpected search response: hits.hits[0]._source is not an object.',
    ],
    [
      'a bad total',
      { hits: { total: { value: -1, relation: 'eq' }, hits: [] } },
      'Elasticsearch returned an unexpected search response: hits.total.value is not a non-negative integer.',
    ],
  ])('shape - %s is UPSTREAM_BAD_RESPONSE', (_name, body, message) => {
    expect(() => shape('search', {}, body)).toThrow(
      expect.objectContaining({ code: 'UPSTREAM_BAD_RESPONSE', message }),
    );
  });

  it('shape - get returns the visible document, or NOT_FOUND', () => {
    const found = shape(
      'get',
      { id: 'o1' },
      searchBody([{ _id: 'o1', _source: { status: 'paid', internal_note: 'x' } }]),
    );
    expect(found).toMatchObject({
      data: { _id: 'o1', status: 'paid' },
      returned: 1,
      truncated: false,
    });
    expect(() => shape('get', { id: 'o1' }, searchBody([]))).toThrow(
      expect.objectContaining({
        code: 'NOT_FOUND',
        message: 'No document with that id in es_orders (or it is outside what you may see).',
      }),
    );
  });

  it('shape - count and write', () => {
    expect(shape('count', {}, { count: 7, _shards: {} })).toEqual({
      data: { count: 7 },
      returned: 0,
      total: { value: 7, relation: 'eq' },
      truncated: false,
      bytes: 11,
    });
    expect(() => shape('count', {}, { count: '7' })).toThrow(
      expect.objectContaining({ code: 'UPSTREAM_BAD_RESPONSE' }),
    );
    expect(
      shape(
        'write',
        { id: 'o1', document: { status: 'a' } },
        { _id: 'o1', result: 'created', _seq_no: 3 },
      ).data,
    ).toEqual({
      _id: 'o1',
      result: 'created',
    });
  });

  const aggregations: Array<[unknown, unknown, unknown]> = [
    [
      { kind: 'terms', field: 'status' },
      {
        buckets: [
          { key: 'paid', doc_count: 3 },
          { key: 'open', doc_count: 1 },
        ],
        sum_other_doc_count: 2,
      },
      {
        kind: 'terms',
        field: 'status',
        buckets: [
          { key: 'paid', count: 3 },
          { key: 'open', count: 1 },
        ],
        otherCount: 2,
      },
    ],
    [
      { kind: 'terms', field: 'paid' },
      { buckets: [{ key: 1, key_as_string: 'true', doc_count: 3 }], sum_other_doc_count: 0 },
      { kind: 'terms', field: 'paid', buckets: [{ key: 'true', count: 3 }], otherCount: 0 },
    ],
    [
      { kind: 'date_histogram', field: 'created_at', interval: 'month' },
      {
        buckets: [{ key: 1714521600000, key_as_string: '2024-05-01T00:00:00.000Z', doc_count: 4 }],
      },
      {
        kind: 'date_histogram',
        field: 'created_at',
        buckets: [{ key: '2024-05-01T00:00:00.000Z', count: 4 }],
      },
    ],
    [
      { kind: 'stats', field: 'amount' },
      { count: 2, min: 1, max: 3, avg: 2, sum: 4 },
      { kind: 'stats', field: 'amount', stats: { count: 2, min: 1, max: 3, avg: 2, sum: 4 } },
    ],
    [
      { kind: 'stats', field: 'created_at' },
      { count: 0, min: null, max: null, avg: null, sum: 0 },
      {
        kind: 'stats',
        field: 'created_at',
        stats: { count: 0, min: null, max: null, avg: null, sum: 0 },
      },
    ],
    [
      { kind: 'cardinality', field: 'id' },
      { value: 12 },
      { kind: 'cardinality', field: 'id', value: 12 },
    ],
  ];
  it.each(aggregations)(
    'shape - aggregation %j is reduced to buckets or values',
    (aggregation, result, data) => {
      const shaped = shape(
        'aggregate',
        { aggregation },
        { hits: { total: { value: 6, relation: 'eq' }, hits: [] }, aggregations: { result } },
      );
      expect(shaped.data).toEqual(data);
      expect(shaped.total).toEqual({ value: 6, relation: 'eq' });
    },
  );

  it('shape - aggregation buckets respect the byte cap', () => {
    const buckets = Array.from({ length: 100 }, (_v, i) => ({
      key: `status-${i}`.padEnd(40, 'x'),
      doc_count: i,
    }));
    const shaped = shape(
      'aggregate',
      { aggregation: { kind: 'terms', field: 'status', size: 100 } },
      { hits: { hits: [] }, aggregations: { result: { buckets, sum_other_doc_count: 0 } } },
      1024,
    );
    expect(shaped.truncated).toBe(true);
    expect(shaped.bytes).toBeLessThanOrEqual(1024);
    expect(shaped.returned).toBeGreaterThan(0);
    expect(shaped.returned).toBeLessThan(100);
  });

  it('shape - a malformed aggregation is UPSTREAM_BAD_RESPONSE', () => {
    expect(() =>
      shape(
        'aggregate',
        { aggregation: { kind: 'terms', field: 'status' } },
        { hits: { hits: [] }, aggregations: { result: { buckets: {} } } },
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'UPSTREAM_BAD_RESPONSE',
        message:
          'Elasticsearch returned an unexpected aggregation response: aggregations.result.buckets is not an array.',
      }),
    );
  });
});
