import { describe, expect, it } from 'vitest';

import { compileRequest } from '../src/compile/compile.js';
import { elasticsearchKind } from '../src/kind/kind.js';
import { context, ordersDescriptor, TEAM_A } from './fixtures.js';

function rejectionOf(fn: () => unknown): { code: string; message: string; details: unknown[] } {
  try {
    fn();
  } catch (err) {
    return err as { code: string; message: string; details: unknown[] };
  }
  throw new Error('expected a rejection');
}

describe('compile get, count, aggregate, write', () => {
  it('operations - writes only when the resource is explicitly not read-only', () => {
    const names = (readonly: boolean | undefined) => {
      const descriptor = ordersDescriptor({ readonly: readonly ?? true });
      if (readonly === undefined) delete descriptor.spec.access.readonly;
      return elasticsearchKind.operations(descriptor).map((op) => op.name);
    };
    expect(names(undefined)).toEqual(['search', 'get', 'count', 'aggregate']);
    expect(names(true)).toEqual(['search', 'get', 'count', 'aggregate']);
    expect(names(false)).toEqual(['search', 'get', 'count', 'aggregate', 'write']);
    const write = elasticsearchKind.operations(ordersDescriptor({ readonly: false })).at(-1);
    expect(write).toEqual({ name: 'write', action: 'write', class: 'write', idempotent: true });
  });

  it('operations - write on a read-only resource and ungranted operations are denied', () => {
    const readonly = context({ descriptor: ordersDescriptor({ readonly: true }) });
    expect(
      rejectionOf(() => compileRequest('write', { id: 'x', document: { status: 'a' } }, readonly)),
    ).toMatchObject({
      code: 'POLICY_DENIED',
      message: 'es_orders is read-only; write is not available.',
    });
    const ctx = context();
    const narrow = { ...ctx, permissions: { ...ctx.permissions, operations: ['search' as const] } };
    expect(rejectionOf(() => compileRequest('count', {}, narrow))).toMatchObject({
      code: 'POLICY_DENIED',
    });
    expect(rejectionOf(() => compileRequest('drop' as never, {}, ctx))).toMatchObject({
      code: 'UNKNOWN_TOOL',
    });
  });

  it('get - a one-document search by id under the row filter', () => {
    expect(
      compileRequest('get', { id: 'o-1', fields: ['status', 'email'] }, context()),
    ).toMatchObject({
      operation: 'get',
      fields: ['email', 'status'],
      native: {
        api: 'search',
        index: 'orders',
        body: {
          query: { bool: { filter: [TEAM_A, { ids: { values: ['o-1'] } }] } },
          _source: { includes: ['email', 'status'] },
          size: 1,
          track_total_hits: false,
        },
      },
    });
  });

  it('get - ids must be non-empty strings of at most 512 characters', () => {
    for (const id of ['', 'x'.repeat(513), 5, null]) {
      expect(rejectionOf(() => compileRequest('get', { id }, context()))).toMatchObject({
        code: 'ARGUMENTS_INVALID',
        details: [{ path: 'id', expected: 'non-empty string of at most 512 characters' }],
      });
    }
  });

  it('count - exact body with filters', () => {
    expect(
      compileRequest('count', { filters: [{ field: 'paid', op: 'eq', value: true }] }, context())
        .native,
    ).toEqual({
      api: 'count',
      index: 'orders',
      body: { query: { bool: { filter: [TEAM_A, { term: { paid: { value: true } } }] } } },
    });
  });

  it.each([
    [
      { kind: 'terms', field: 'status', size: null, interval: null },
      { terms: { field: 'status', size: 10 } },
    ],
    [{ kind: 'terms', field: 'paid', size: 100 }, { terms: { field: 'paid', size: 100 } }],
    [
      { kind: 'date_histogram', field: 'created_at', size: null, interval: 'month' },
      { date_histogram: { field: 'created_at', calendar_interval: 'month', min_doc_count: 1 } },
    ],
    [{ kind: 'stats', field: 'amount' }, { stats: { field: 'amount' } }],
    [{ kind: 'cardinality', field: 'id' }, { cardinality: { field: 'id' } }],
  ])('aggregate - %j compiles to an exact aggregation', (aggregation, expected) => {
    const request = compileRequest('aggregate', { filters: null, aggregation }, context());
    expect(request.native).toEqual({
      api: 'search',
      index: 'orders',
      body: {
        query: { bool: { filter: [TEAM_A] } },
        _source: false,
        size: 0,
        track_total_hits: 10000,
        aggs: { result: expected },
      },
    });
  });

  it.each([
    [
      { kind: 'terms', field: 'status', size: 101 },
      'aggregation.size',
      'size must be an integer from 1 to 100',
    ],
    [
      { kind: 'terms', field: 'note' },
      'aggregation.field',
      'field "note" cannot be used in a terms aggregation',
    ],
    [
      { kind: 'terms', field: 'user_ref' },
      'aggregation.field',
      'field "user_ref" cannot be used in a terms aggregation',
    ],
    [
      { kind: 'terms', field: 'internal_note' },
      'aggregation.field',
      'field "internal_note" cannot be used in a terms aggregation',
    ],
    [
      { kind: 'stats', field: 'status' },
      'aggregation.field',
      'field "status" cannot be used in a stats aggregation',
    ],
    [
      { kind: 'date_histogram', field: 'created_at', interval: '1ms' },
      'aggregation.interval',
      'date_histogram needs a calendar interval',
    ],
    [
      { kind: 'stats', field: 'amount', size: 5 },
      'aggregation.size',
      'size applies to terms aggregations only',
    ],
    [{ kind: 'scripted_metric', field: 'amount' }, 'aggregation.kind', 'unknown aggregation kind'],
    [
      { kind: 'terms', field: 'status', script: 'x' },
      'aggregation.script',
      'unknown argument "script"',
    ],
  ])('aggregate - %j is rejected', (aggregation, path, message) => {
    expect(
      rejectionOf(() => compileRequest('aggregate', { aggregation }, context())),
    ).toMatchObject({
      code: 'ARGUMENTS_INVALID',
      details: [{ path, message }],
    });
  });

  it('write - declared, visible fields only, nested by path, row filter pinned and guarded', () => {
    const request = compileRequest(
      'write',
      {
        id: 'o-9',
        document: {
          status: 'paid',
          amount: 12.5,
          'customer.name': 'Ann',
          created_at: '2024-05-01T10:00:00Z',
          note: null,
        },
      },
      context(),
    );
    expect(request).toMatchObject({ operation: 'write', idempotent: false, fields: [] });
    expect(request.native).toEqual({
      api: 'write',
      index: 'orders',
      id: 'o-9',
      document: {
        amount: 12.5,
        created_at: '2024-05-01T10:00:00Z',
        customer: { name: 'Ann' },
        note: null,
        status: 'paid',
        tenant_id: 'team-a',
      },
      refresh: 'wait_for',
      guard: { field: 'tenant_id', value: 'team-a' },
    });
  });

  it('write - without a row filter there is no guard', () => {
    const ctx = context({ descriptor: ordersDescriptor({ rowFilter: undefined }) });
    expect(
      compileRequest('write', { id: 'o-9', document: { status: 'paid' } }, ctx).native,
    ).toMatchObject({
      document: { status: 'paid' },
      guard: null,
    });
  });

  it('write - hostile documents are rejected field by field', () => {
    const document = JSON.parse(
      '{"__proto__":{"admin":true},"internal_note":"x","risk_score":1,"tenant_id":"team-b","amount":"12","status":{"script":"x"},"customer":{"name":"x"}}',
    ) as unknown;
    const error = rejectionOf(() => compileRequest('write', { id: 'o-1', document }, context()));
    expect(error.code).toBe('ARGUMENTS_INVALID');
    expect(error.details).toEqual([
      expect.objectContaining({
        path: 'document.__proto__',
        message: 'field "__proto__" is not writable',
      }),
      expect.objectContaining({ path: 'document.amount', message: 'expected finite number' }),
      expect.objectContaining({
        path: 'document.customer',
        message: 'field "customer" is not writable',
      }),
      expect.objectContaining({
        path: 'document.internal_note',
        message: 'field "internal_note" is not writable',
      }),
      expect.objectContaining({
        path: 'document.risk_score',
        message: 'field "risk_score" is not writable',
      }),
      expect.objectContaining({
        path: 'document.status',
        message: 'expected string of at most 256 characters',
      }),
      {
        path: 'document.tenant_id',
        message: '"tenant_id" is set by the platform; omit it or use your own value',
        expected: '"team-a"',
        found: '"team-b"',
      },
    ]);
  });
});
