import { createHash } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CompileContext,
  ExecuteContext,
  Operation,
  ResourceDescriptor,
  ShapedResult,
} from '@tollgate/core';

import { elasticsearchConnector as es } from '../src/index.js';
import type { ElasticsearchSpec } from '../src/index.js';
import { context, ordersDescriptor } from './fixtures.js';
import { startFaultProxy } from './proxy.js';
import { adminClient, dropIndices, ES_URL, testCredentials, uniquePrefix } from './support.js';

const prefix = uniquePrefix();
const index = `${prefix}_orders`;
const admin = adminClient();

const ORDERS = [
  {
    id: 'o1',
    tenant_id: 'team-a',
    status: 'paid',
    amount: 10.5,
    quantity: 1,
    created_at: '2024-05-01T10:00:00Z',
    note: 'late delivery of the parcel',
    internal_note: 'vip',
    email: 'ann@example.com',
    card: '4111111111111111',
    user_ref: 'u-1',
    risk_score: 5,
    paid: true,
    client_ip: '10.0.0.1',
    customer: { name: 'Ann', tier: 'gold' },
  },
  {
    id: 'o2',
    tenant_id: 'team-a',
    status: 'open',
    amount: 20,
    quantity: 2,
    created_at: '2024-05-02T10:00:00Z',
    note: 'customer asked for an invoice',
    internal_note: 'x',
    email: 'bob@example.com',
    card: '5500000000000004',
    user_ref: 'u-2',
    risk_score: 1,
    paid: false,
    client_ip: '10.0.0.2',
    customer: { name: 'Bob', tier: 'silver' },
  },
  {
    id: 'o3',
    tenant_id: 'team-a',
    status: 'paid',
    amount: 30,
    quantity: 3,
    created_at: '2024-06-01T10:00:00Z',
    note: 'delivery was late again',
    internal_note: 'x',
    email: 'cid@example.com',
    card: '340000000000009',
    user_ref: 'u-3',
    risk_score: 9,
    paid: true,
    client_ip: '10.0.0.3',
    customer: { name: 'Cid', tier: 'gold' },
  },
  {
    id: 'o4',
    tenant_id: 'team-b',
    status: 'paid',
    amount: 40,
    quantity: 4,
    created_at: '2024-05-03T10:00:00Z',
    note: 'late delivery',
    internal_note: 'x',
    email: 'dan@example.com',
    card: '6011000000000004',
    user_ref: 'u-4',
    risk_score: 2,
    paid: true,
    client_ip: '10.0.0.4',
    customer: { name: 'Dan', tier: 'gold' },
  },
  {
    id: 'o5',
    tenant_id: 'team-b',
    status: 'open',
    amount: 50,
    quantity: 5,
    created_at: '2024-05-04T10:00:00Z',
    note: 'fine',
    internal_note: 'x',
    email: 'eve@example.com',
    card: '3530111333300000',
    user_ref: 'u-5',
    risk_score: 3,
    paid: false,
    client_ip: '10.0.0.5',
    customer: { name: 'Eve', tier: 'silver' },
  },
];

function descriptor(
  change: (d: ResourceDescriptor<ElasticsearchSpec>) => void = () => undefined,
): ResourceDescriptor {
  const d = ordersDescriptor() as unknown as ResourceDescriptor<ElasticsearchSpec>;
  d.spec.connection = { endpoint: ES_URL, timeoutMs: 5000 };
  d.spec.target = { index };
  change(d);
  return d as unknown as ResourceDescriptor;
}

async function run(
  operation: Operation,
  args: unknown,
  ctx: CompileContext = context({ descriptor: descriptor() }),
  exec: Partial<ExecuteContext> = {},
): Promise<ShapedResult> {
  const request = es.compile(operation, args, ctx);
  const upstream = await es.execute(request, {
    descriptor: ctx.descriptor,
    credentials: testCredentials,
    ...exec,
  });
  return es.shape(operation, upstream, {
    descriptor: ctx.descriptor,
    permissions: ctx.permissions,
    request,
  });
}

async function failure(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (err) {
    return err as Record<string, unknown>;
  }
  throw new Error('expected a failure');
}

const hash = (text: string): string =>
  `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;

beforeAll(async () => {
  const text = { type: 'text' } as const;
  const keyword = { type: 'keyword' } as const;
  await admin.indices.create({
    index,
    mappings: {
      properties: {
        id: keyword,
        tenant_id: keyword,
        status: keyword,
        amount: { type: 'double' },
        quantity: { type: 'integer' },
        created_at: { type: 'date' },
        note: text,
        internal_note: text,
        email: keyword,
        card: keyword,
        user_ref: keyword,
        risk_score: { type: 'long' },
        paid: { type: 'boolean' },
        client_ip: { type: 'ip' },
        customer: { properties: { name: keyword, tier: keyword } },
      },
    },
  });
  await admin.bulk({
    refresh: true,
    operations: ORDERS.flatMap((order) => [{ index: { _index: index, _id: order.id } }, order]),
  });
});

afterAll(async () => {
  await dropIndices(admin, prefix);
  await admin.close();
  await es.close();
});

describe('execute reads (real Elasticsearch)', () => {
  it('search - full-text match stays inside the row filter', async () => {
    const result = await run('search', {
      filters: [{ field: 'note', op: 'match', value: 'late delivery' }],
      fields: ['id'],
    });
    expect((result.data as Array<{ id: string }>).map((row) => row.id).sort()).toEqual([
      'o1',
      'o3',
    ]);
    expect(result.total).toEqual({ value: 2, relation: 'eq' });
  });

  it('search - range, sort and redaction produce exact rows', async () => {
    const result = await run('search', {
      filters: [{ field: 'amount', op: 'between', value: [15, 35] }],
      sort: [{ field: 'amount', order: 'desc' }],
      fields: ['id', 'amount', 'email', 'card', 'user_ref', 'customer.name'],
    });
    expect(result).toEqual({
      data: [
        {
          _id: 'o3',
          id: 'o3',
          amount: 30,
          email: '***',
          card: '***0009',
          user_ref: hash('u-3'),
          customer: { name: 'Cid' },
        },
        {
          _id: 'o2',
          id: 'o2',
          amount: 20,
          email: '***',
          card: '***0004',
          user_ref: hash('u-2'),
          customer: { name: 'Bob' },
        },
      ],
      returned: 2,
      total: { value: 2, relation: 'eq' },
      truncated: false,
      bytes: expect.any(Number) as number,
    });
  });

  it.each([
    [{ field: 'created_at', op: 'gte', value: '2024-05-02T00:00:00Z' }, ['o2', 'o3']],
    [{ field: 'created_at', op: 'lt', value: '2024-05-02' }, ['o1']],
    [{ field: 'status', op: 'in', value: ['open', 'void'] }, ['o2']],
    [{ field: 'paid', op: 'eq', value: false }, ['o2']],
    [{ field: 'client_ip', op: 'eq', value: '10.0.0.3' }, ['o3']],
    [{ field: 'quantity', op: 'gt', value: 1 }, ['o2', 'o3']],
    [{ field: 'customer.name', op: 'eq', value: 'Ann' }, ['o1']],
    [{ field: 'email', op: 'exists', value: null }, ['o1', 'o2', 'o3']],
    [{ field: 'status', op: 'eq', value: '{"match_all":{}}' }, []],
    [{ field: 'tenant_id', op: 'eq', value: 'team-b' }, []],
  ])('search - filter %j selects %j', async (filter, ids) => {
    const result = await run('search', {
      filters: [filter],
      fields: ['id'],
      sort: [{ field: 'id', order: 'asc' }],
    });
    expect((result.data as Array<{ id: string }>).map((row) => row.id)).toEqual(ids);
  });

  it('search - cursors page through every row once', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page += 1) {
      const result = await run('search', {
        fields: ['id'],
        sort: [{ field: 'created_at', order: 'desc' }],
        limit: 1,
        cursor,
      });
      ids.push(...(result.data as Array<{ id: string }>).map((row) => row.id));
      cursor = result.cursor ?? null;
      if (cursor === null) break;
    }
    expect(ids).toEqual(['o3', 'o2', 'o1']);
  });

  it('get - returns a visible document, and NOT_FOUND outside the row filter', async () => {
    const found = await run('get', { id: 'o1', fields: null });
    expect(found.data).toEqual({
      _id: 'o1',
      id: 'o1',
      tenant_id: 'team-a',
      status: 'paid',
      amount: 10.5,
      quantity: 1,
      created_at: '2024-05-01T10:00:00Z',
      note: 'late delivery of the parcel',
      email: '***',
      card: '***1111',
      user_ref: hash('u-1'),
      paid: true,
      client_ip: '10.0.0.1',
      customer: { name: 'Ann', tier: 'gold' },
    });
    expect(await failure(run('get', { id: 'o4' }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('count - counts the principal rows under filters', async () => {
    expect((await run('count', {})).data).toEqual({ count: 3 });
    expect(
      (await run('count', { filters: [{ field: 'paid', op: 'eq', value: true }] })).data,
    ).toEqual({ count: 2 });
  });

  it.each([
    [
      { kind: 'terms', field: 'status' },
      {
        kind: 'terms',
        field: 'status',
        buckets: [
          { key: 'paid', count: 2 },
          { key: 'open', count: 1 },
        ],
        otherCount: 0,
      },
    ],
    [
      { kind: 'date_histogram', field: 'created_at', interval: 'month' },
      {
        kind: 'date_histogram',
        field: 'created_at',
        buckets: [
          { key: '2024-05-01T00:00:00.000Z', count: 2 },
          { key: '2024-06-01T00:00:00.000Z', count: 1 },
        ],
      },
    ],
    [
      { kind: 'stats', field: 'amount' },
      {
        kind: 'stats',
        field: 'amount',
        stats: { count: 3, min: 10.5, max: 30, avg: 20.166666666666668, sum: 60.5 },
      },
    ],
    [
      { kind: 'cardinality', field: 'id' },
      { kind: 'cardinality', field: 'id', value: 3 },
    ],
  ])('aggregate - %j', async (aggregation, data) => {
    expect((await run('aggregate', { aggregation })).data).toEqual(data);
  });

  it('errors - a 400 from Elasticsearch is UPSTREAM_REJECTED with a sanitised message', async () => {
    const wrong = descriptor((d) => {
      d.spec.schema.fields['note'] = { type: 'keyword', sortable: true, returnable: true };
    });
    const error = await failure(
      run('search', { sort: [{ field: 'note', order: 'asc' }] }, context({ descriptor: wrong })),
    );
    expect(error).toMatchObject({ code: 'UPSTREAM_REJECTED', upstreamStatus: 400, attempts: 1 });
    expect(error['message']).toMatch(
      /^Elasticsearch rejected the request for es_orders \(400 [a-z_]+\)\.$/,
    );
  });

  it('errors - a missing index is NOT_FOUND', async () => {
    const missing = descriptor((d) => {
      d.spec.target = { index: `${prefix}_missing` };
    });
    expect(await failure(run('count', {}, context({ descriptor: missing })))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'The index behind es_orders does not exist.',
      upstreamStatus: 404,
    });
  });

  it('errors - an unreachable endpoint is UPSTREAM_UNAVAILABLE after the default three attempts', async () => {
    const offline = descriptor((d) => {
      d.spec.connection.endpoint = 'http://127.0.0.1:1';
    });
    const error = await failure(
      run('count', {}, context({ descriptor: offline }), { backoffMs: 10 }),
    );
    expect(error).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      category: 'retryable',
      attempts: 3,
      message: 'Elasticsearch is unreachable for es_orders (ECONNREFUSED).',
    });
  });
});

describe('execute faults (delaying proxy in front of real Elasticsearch)', () => {
  const through = (url: string, timeoutMs = 5000): CompileContext =>
    context({
      descriptor: descriptor((d) => {
        d.spec.connection = { endpoint: url, timeoutMs };
      }),
    });

  it('timeout - a slow answer is UPSTREAM_TIMEOUT per attempt, retried for reads', async () => {
    const proxy = await startFaultProxy(ES_URL, { delayMs: () => 3000 });
    try {
      const error = await failure(
        run('count', {}, through(proxy.url, 200), { maxAttempts: 2, backoffMs: 10 }),
      );
      expect(error).toMatchObject({ code: 'UPSTREAM_TIMEOUT', category: 'retryable', attempts: 2 });
      expect(proxy.requests).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });

  it('timeout - the caller deadline bounds the wait even when the resource timeout is longer', async () => {
    const proxy = await startFaultProxy(ES_URL, { delayMs: () => 3000 });
    try {
      const started = Date.now();
      const error = await failure(
        run('count', {}, through(proxy.url, 5000), { deadline: Date.now() + 300 }),
      );
      expect(error).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await proxy.close();
    }
  });

  it('timeout - a cancelled call stops at once and is not retried', async () => {
    const proxy = await startFaultProxy(ES_URL, { delayMs: () => 3000 });
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const error = await failure(
        run('count', {}, through(proxy.url), { signal: controller.signal }),
      );
      expect(error).toMatchObject({ code: 'UPSTREAM_TIMEOUT', attempts: 1 });
      expect(proxy.requests).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('retry - a 503 is retried and the read succeeds on the next attempt', async () => {
    const proxy = await startFaultProxy(ES_URL, { failWith: (n) => (n === 1 ? 503 : undefined) });
    try {
      const ctx = through(proxy.url);
      const request = es.compile('count', {}, ctx);
      const upstream = await es.execute(request, {
        descriptor: ctx.descriptor,
        credentials: testCredentials,
        backoffMs: 10,
      });
      expect(upstream).toMatchObject({ status: 200, attempts: 2, body: { count: 3 } });
    } finally {
      await proxy.close();
    }
  });

  it('retry - persistent 503s end as UPSTREAM_UNAVAILABLE with the status and attempts', async () => {
    const proxy = await startFaultProxy(ES_URL, { failWith: () => 503 });
    try {
      expect(await failure(run('count', {}, through(proxy.url), { backoffMs: 10 }))).toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        upstreamStatus: 503,
        attempts: 3,
      });
      expect(proxy.requests).toHaveLength(3);
    } finally {
      await proxy.close();
    }
  });

  it('retry - writes are never retried', async () => {
    const proxy = await startFaultProxy(ES_URL, { failWith: () => 503 });
    try {
      const ctx = context({
        descriptor: descriptor((d) => {
          d.spec.connection = { endpoint: proxy.url, timeoutMs: 2000 };
          d.spec.access.rowFilter = undefined;
        }),
      });
      expect(
        await failure(
          run('write', { id: 'w-retry', document: { status: 'x' } }, ctx, { backoffMs: 10 }),
        ),
      ).toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        attempts: 1,
      });
      expect(proxy.requests).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('write - a timeout after the write was sent is WRITE_OUTCOME_UNKNOWN', async () => {
    const proxy = await startFaultProxy(ES_URL, { delayMs: (n) => (n === 2 ? 3000 : 0) });
    try {
      const error = await failure(
        run('write', { id: 'w-slow', document: { status: 'x' } }, through(proxy.url, 300)),
      );
      expect(error).toMatchObject({
        code: 'WRITE_OUTCOME_UNKNOWN',
        category: 'needs_human',
        attempts: 1,
      });
      expect(proxy.requests.map((r) => r.method)).toEqual(['GET', 'PUT']);
    } finally {
      await proxy.close();
    }
  });
});

describe('execute writes (real Elasticsearch)', () => {
  it('write - row-scoped create then update of the principal document', async () => {
    expect(
      (
        await run('write', {
          id: 'o6',
          document: { status: 'open', amount: 60, 'customer.name': 'Fay' },
        })
      ).data,
    ).toEqual({ _id: 'o6', result: 'created' });
    expect(
      (await run('get', { id: 'o6', fields: ['status', 'tenant_id', 'customer.name'] })).data,
    ).toEqual({
      _id: 'o6',
      status: 'open',
      tenant_id: 'team-a',
      customer: { name: 'Fay' },
    });
    expect((await run('write', { id: 'o6', document: { status: 'paid' } })).data).toEqual({
      _id: 'o6',
      result: 'updated',
    });
    expect((await run('get', { id: 'o6', fields: ['status', 'amount'] })).data).toEqual({
      _id: 'o6',
      status: 'paid',
      amount: 60,
    });
  });

  it('write - a document of another tenant cannot be taken over', async () => {
    expect(await failure(run('write', { id: 'o4', document: { status: 'void' } }))).toMatchObject({
      code: 'ALREADY_EXISTS',
    });
    const stored = await admin.get<{ status: string; tenant_id: string }>({ index, id: 'o4' });
    expect(stored._source).toMatchObject({ status: 'paid', tenant_id: 'team-b' });
  });

  it('write - without a row filter it is an upsert of the named fields', async () => {
    const open = context({
      descriptor: descriptor((d) => {
        d.spec.access.rowFilter = undefined;
      }),
    });
    expect((await run('write', { id: 'o7', document: { status: 'open' } }, open)).data).toEqual({
      _id: 'o7',
      result: 'created',
    });
    expect((await run('write', { id: 'o7', document: { amount: 7 } }, open)).data).toEqual({
      _id: 'o7',
      result: 'updated',
    });
    const stored = await admin.get({ index, id: 'o7' });
    expect(stored._source).toEqual({ status: 'open', amount: 7 });
  });
});
