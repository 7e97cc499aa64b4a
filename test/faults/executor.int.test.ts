import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM, ensureEventStream } from '@tollgate/kit';
import { ORDERS_MAPPING, ordersResource, seedOrders } from '../fixtures/orders.js';
import { eventually, uniqueName } from '../support/infra.js';
import {
  ES_URL,
  ORDERS_INDEX,
  startHarness,
} from '../../services/executor/test/support/harness.js';
import type { Harness } from '../../services/executor/test/support/harness.js';
import { startEsProxy } from '../security/support/es-proxy.js';
import type { EsProxy } from '../security/support/es-proxy.js';

let h: Harness;
let proxy: EsProxy;
const writes = uniqueName('tg_exec_faults').toLowerCase();
const ACCEPT_AFTER_MS = 2_500;

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  await seedOrders(h.es, ORDERS_INDEX);
  await h.es.indices.create({ index: writes, mappings: ORDERS_MAPPING as never });
  proxy = await startEsProxy(ES_URL);
  const teamA = [
    {
      descriptor: ordersResource({ endpoint: proxy.url, index: ORDERS_INDEX, timeoutMs: 400 }),
      version: 1,
    },
    {
      descriptor: ordersResource({
        name: 'orders_down',
        endpoint: 'http://127.0.0.1:1',
        index: ORDERS_INDEX,
      }),
      version: 1,
    },
    {
      descriptor: ordersResource({
        name: 'orders_slow',
        endpoint: proxy.url,
        index: ORDERS_INDEX,
        timeoutMs: 20_000,
      }),
      version: 1,
    },
    {
      descriptor: ordersResource({
        name: 'orders_writes',
        endpoint: proxy.url,
        index: writes,
        readonly: false,
        timeoutMs: 400,
      }),
      version: 1,
    },
  ];
  for (const r of teamA) await h.publishResource(r.descriptor, r.version);
  await h.publishBundle(teamA, 1, { resource: 'orders_writes' });
  await h.publishResource(
    ordersResource({ tenant: 'team-c', endpoint: ES_URL, index: ORDERS_INDEX }),
    1,
  );
  h.running = await h.startExecutor({ acceptAfterMs: ACCEPT_AFTER_MS });
  // The first call per principal × resource computes its permissions and compiles its tools;
  // make that happen before the cases whose budgets are tight.
  for (const resource of ['es_orders', 'orders_down', 'orders_slow'])
    await h.call(`${resource}_search`, {}, { timeoutMs: ACCEPT_AFTER_MS });
  await h.call(
    'orders_writes_get',
    { id: 'none' },
    { agent: 'ops_bot', timeoutMs: ACCEPT_AFTER_MS },
  );
});
afterAll(async () => {
  await h?.es.indices.delete({ index: writes, ignore_unavailable: true });
  await h?.stop();
  await proxy?.close();
});

const byId = { filters: [{ field: 'id', op: 'eq', value: '12345' }] };

describe('faults - the executor under failing dependencies', () => {
  it('faults - Elasticsearch down answers a retryable error after retrying the read', async () => {
    const answer = await h.call('orders_down_search', byId, { timeoutMs: ACCEPT_AFTER_MS });
    expect(answer.error).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      category: 'retryable',
      message: 'Elasticsearch is unreachable for orders_down (ECONNREFUSED).',
    });
    expect(answer.meta?.upstreamStatus).toBe(0);
  });

  it("faults - slow Elasticsearch answers a timeout error within the call's deadline", async () => {
    proxy.delay = () => 3_000;
    try {
      const budget = 2_000;
      const before = proxy.requests.length;
      // The test waits only a little longer than the budget: an answer at all proves the deadline held.
      const answer = await h.call('es_orders_search', byId, {
        timeoutMs: budget,
        waitMs: budget + 1_000,
      });
      expect(answer.error).toMatchObject({ code: 'UPSTREAM_TIMEOUT', category: 'retryable' });
      expect(answer.meta?.latencyMs as number).toBeLessThan(budget);
      // Reads are retried while time remains.
      expect(proxy.requests.length - before).toBeGreaterThanOrEqual(2);
    } finally {
      proxy.delay = () => 0;
    }
  });

  it('faults - a write that times out is reported as an unknown outcome and never sent twice', async () => {
    proxy.delay = (r) => (r.method === 'PUT' || r.method === 'POST' ? 1_000 : 0);
    try {
      const before = proxy.requests.length;
      const answer = await h.call(
        'orders_writes_write',
        { id: 'slow-1', document: { status: 'paid' } },
        { agent: 'ops_bot', idempotencyKey: 'slow-1', timeoutMs: 5_000 },
      );
      expect(answer.error).toMatchObject({
        code: 'WRITE_OUTCOME_UNKNOWN',
        category: 'needs_human',
      });
      const mutations = proxy.requests
        .slice(before)
        .filter((r) => r.method === 'PUT' || r.method === 'POST');
      expect(mutations).toHaveLength(1);
      // A retry with the same key gets the same unknown outcome instead of writing again.
      const retry = await h.call(
        'orders_writes_write',
        { id: 'slow-1', document: { status: 'paid' } },
        { agent: 'ops_bot', idempotencyKey: 'slow-1', timeoutMs: 5_000 },
      );
      expect(retry.error).toMatchObject({ code: 'WRITE_OUTCOME_UNKNOWN' });
      expect(
        proxy.requests.slice(before).filter((r) => r.method === 'PUT' || r.method === 'POST'),
      ).toHaveLength(1);
    } finally {
      proxy.delay = () => 0;
    }
  });

  it('faults - a long call answers accepted and finishes with an event and by polling', async () => {
    proxy.delay = () => 3_000;
    try {
      const answer = await h.call('orders_slow_search', byId, { timeoutMs: 15_000 });
      expect(answer.status).toBe('accepted');
      expect(answer.raw?.taskId).toBe(answer.callId);
      await h.eventOf(answer.callId, 'call.completed', 'ACCEPTED');
      expect((await h.poll(answer.callId)).status).toBe('accepted');
      await h.eventOf(answer.callId, 'call.completed', 'OK');
      const done = await h.poll(answer.callId);
      expect(done.status).toBe('ok');
      expect(done.data).toEqual([expect.objectContaining({ id: '12345' })]);
    } finally {
      proxy.delay = () => 0;
    }
  });

  it('faults - a tenant without a policy bundle is denied (fail closed)', async () => {
    const answer = await h.call('es_orders_search', byId, {
      token: await h.token('support_bot', { tenant: 'team-c' }),
    });
    expect(answer.error).toMatchObject({ code: 'POLICY_UNAVAILABLE', category: 'denied' });
    expect(proxy.requests.some((r) => r.body.includes('team-c'))).toBe(false);
  });

  it('faults - without JetStream the call fails rather than answer without an audit record', async () => {
    const jsm = await jetstreamManager(h.nc);
    await jsm.streams.delete(EVENTS_STREAM);
    try {
      const answer = await h.call('es_orders_search', byId);
      expect(answer.error).toMatchObject({ code: 'INTERNAL', category: 'internal' });
      expect(answer.error?.message).toMatch(/^The call could not be recorded in the audit trail/);
      expect(answer.data).toBeUndefined();
    } finally {
      await ensureEventStream(h.nc);
    }
    expect((await h.call('es_orders_search', byId)).status).toBe('ok');
  });

  it('faults - after a NATS restart the executor reconnects and serves again', async () => {
    expect((await h.call('es_orders_search', byId)).status).toBe('ok');
    await h.nats.stop(true);
    await h.nats.start();
    const answer = await eventually(
      async () => {
        const reply = await h.call('es_orders_search', byId, { waitMs: 2_000 });
        return reply.status === 'ok' ? reply : undefined;
      },
      30_000,
      250,
    );
    expect(answer.data).toEqual([expect.objectContaining({ id: '12345' })]);
    await h.eventOf(answer.callId, 'call.completed', 'OK');
    // Hot reload keeps working over the new connection.
    await h.publishResource(
      ordersResource({
        endpoint: proxy.url,
        index: ORDERS_INDEX,
        timeoutMs: 400,
        without: ['status'],
      }),
      2,
    );
    await eventually(
      async () =>
        (
          await h.call('es_orders_search', {
            filters: [{ field: 'status', op: 'eq', value: 'paid' }],
          })
        ).error?.code === 'ARGUMENTS_INVALID'
          ? true
          : undefined,
      10_000,
    );
  });
});
