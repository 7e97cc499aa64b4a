import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { DecisionEffect } from '@tollgate/contracts/policy/v1';
import { redactValue } from '@tollgate/core';
import { EVENTS_STREAM, decodeEnvelope, subjects } from '@tollgate/kit';
import {
  FIRST_ORDER_ID,
  generateOrders,
  ordersResource,
  seedOrders,
} from '../../../test/fixtures/orders.js';
import type { OrderDocument } from '../../../test/fixtures/orders.js';
import { ES_URL, ORDERS_INDEX, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';

let h: Harness;
const orders = generateOrders();
const order = (id: number): OrderDocument => orders[id - FIRST_ORDER_ID] as OrderDocument;

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  await seedOrders(h.es, ORDERS_INDEX);
  const descriptor = ordersResource({ endpoint: ES_URL, index: ORDERS_INDEX });
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  h.running = await h.startExecutor({ maxResultBytes: 16_384 });
});
afterAll(async () => {
  await h?.stop();
});

/** What support_bot may see of an order: no account, no e-mail, no warehouse note, no tenant. */
function supportView(o: OrderDocument): Record<string, unknown> {
  return {
    _id: o.id,
    id: o.id,
    amount: o.amount,
    currency: o.currency,
    created_at: o.created_at,
    status: o.status,
    items_count: o.items_count,
    gift: o.gift,
    client_ip: redactValue(o.client_ip, 'hash'),
    customer: { name: o.customer.name, tier: o.customer.tier },
    shipping: { country: o.shipping.country, city: o.shipping.city },
  };
}

describe('orders - the orders scenario through the executor', () => {
  it('orders - "order 12345" by id filter returns the document with only visible fields', async () => {
    const answer = await h.call('es_orders_search', {
      filters: [{ field: 'id', op: 'eq', value: '12345' }],
    });
    expect(answer.error).toBeUndefined();
    expect(answer.status).toBe('ok');
    expect(answer.data).toEqual([supportView(order(12_345))]);
    const text = JSON.stringify(answer.data);
    for (const hidden of [
      'user_id',
      'email',
      'internal_note',
      'tenant_id',
      order(12_345).client_ip,
    ])
      expect(text).not.toContain(hidden);
    expect(answer.meta).toMatchObject({
      resource: 'es_orders',
      resourceVersion: 1,
      tool: 'es_orders_search',
      upstreamStatus: 200,
      returned: 1,
      total: 1,
      truncated: false,
      nextCursor: '',
    });
    expect(answer.meta?.toolVersion).toMatch(/^[0-9a-f]{64}$/);
    expect(answer.meta?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(answer.meta?.bytes).toBe(Buffer.byteLength(JSON.stringify(answer.data)));
  });

  it('orders - get by id returns the same visible document', async () => {
    const answer = await h.call('es_orders_get', { id: '12345' });
    expect(answer.status).toBe('ok');
    expect(answer.data).toEqual(supportView(order(12_345)));
  });

  it("orders - another tenant's orders stay invisible whatever the filter", async () => {
    expect(order(10_009).tenant_id).toBe('team-b');
    const byId = await h.call('es_orders_get', { id: '10009' });
    expect(byId.status).toBe('error');
    expect(byId.error).toMatchObject({ code: 'NOT_FOUND', category: 'fix_arguments' });
    const listed = await h.call('es_orders_search', {
      filters: [{ field: 'id', op: 'in', value: ['10008', '10009'] }],
    });
    expect((listed.data as Array<{ id: string }>).map((row) => row.id)).toEqual(['10008']);
  });

  it('orders - order_ops sees the customer account and the masked e-mail', async () => {
    const answer = await h.call(
      'es_orders_search',
      { filters: [{ field: 'id', op: 'eq', value: '12345' }] },
      { agent: 'ops_bot' },
    );
    const [row] = answer.data as Array<Record<string, unknown>>;
    expect(row).toMatchObject({ user_id: order(12_345).user_id, customer: { email: '***' } });
  });

  it('orders - pages report returned, total and truncated, and the cursor continues', async () => {
    const args = {
      filters: [{ field: 'status', op: 'eq', value: 'paid' }],
      fields: ['id', 'created_at'],
      sort: [{ field: 'created_at', order: 'desc' }],
      limit: 5,
    };
    const first = await h.call('es_orders_search', args);
    const expected = orders
      .filter((o) => o.status === 'paid' && o.tenant_id === 'team-a')
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
    expect(first.meta).toMatchObject({ returned: 5, total: expected.length, truncated: false });
    expect(first.meta?.nextCursor).not.toBe('');
    const second = await h.call('es_orders_search', {
      ...args,
      cursor: first.meta?.nextCursor as string,
    });
    const ids = [
      ...(first.data as Array<{ id: string }>),
      ...(second.data as Array<{ id: string }>),
    ].map((r) => r.id);
    expect(ids.slice(0, 5)).toEqual(expected.slice(0, 5).map((o) => o.id));
    expect(new Set(ids).size).toBe(10);
  });

  it('orders - a cursor works only for the principal it was given to: another agent or user with the same query cannot reuse it', async () => {
    const args = {
      filters: [{ field: 'status', op: 'eq', value: 'paid' }],
      fields: ['id', 'created_at'],
      sort: [{ field: 'created_at', order: 'desc' }],
      limit: 5,
    };
    const first = await h.call('es_orders_search', args);
    const cursor = first.meta?.nextCursor as string;
    expect(cursor).not.toBe('');
    const own = await h.call('es_orders_search', { ...args, cursor });
    expect(own.status).toBe('ok');
    const refusals = [
      await h.call('es_orders_search', { ...args, cursor }, { agent: 'ops_bot' }),
      await h.call(
        'es_orders_search',
        { ...args, cursor },
        { token: await h.token('support_bot', { user: 'mallory@example.com' }) },
      ),
    ];
    for (const stolen of refusals) {
      expect(stolen.status).toBe('error');
      expect(stolen.error?.code).toBe('ARGUMENTS_INVALID');
      expect(stolen.error?.details[0]).toMatchObject({ path: 'cursor' });
      expect(stolen.data).toBeUndefined();
    }
  });

  it('orders - the byte cap cuts a large page and says so', async () => {
    const answer = await h.call('es_orders_search', { limit: 100 });
    expect(answer.status).toBe('ok');
    expect(answer.meta?.truncated).toBe(true);
    expect(answer.meta?.bytes as number).toBeLessThanOrEqual(16_384);
    expect(answer.meta?.returned as number).toBeLessThan(100);
    expect(answer.meta?.returned).toBe((answer.data as unknown[]).length);
    expect(answer.meta?.nextCursor).not.toBe('');
  });

  it("orders - count and aggregate answer from the caller's rows only", async () => {
    const paid = orders.filter((o) => o.status === 'paid' && o.tenant_id === 'team-a').length;
    const count = await h.call('es_orders_count', {
      filters: [{ field: 'status', op: 'eq', value: 'paid' }],
    });
    expect(count.data).toEqual({ count: paid });
    const byCurrency = await h.call('es_orders_aggregate', {
      aggregation: { kind: 'terms', field: 'currency' },
    });
    expect(byCurrency.status).toBe('ok');
    const buckets = (byCurrency.data as { buckets: Array<{ key: string; count: number }> }).buckets;
    const eur = orders.filter((o) => o.currency === 'EUR' && o.tenant_id === 'team-a').length;
    expect(buckets.find((b) => b.key === 'EUR')?.count).toBe(eur);
  });

  it('orders - call.completed is stored by JetStream before the reply, arguments redacted', async () => {
    const answer = await h.call(
      'es_orders_search',
      {
        filters: [{ field: 'customer.email', op: 'eq', value: 'bo.novak.1459@example.com' }],
        limit: 3,
      },
      { agent: 'ops_bot' },
    );
    expect(answer.status).toBe('ok');
    // No waiting: the event must already be in the stream when the reply arrives.
    const jsm = await jetstreamManager(h.nc);
    const stored = await jsm.streams.getMessage(EVENTS_STREAM, {
      last_by_subj: subjects.event('call.completed', 'team-a'),
    });
    const event = decodeEnvelope(stored!.data);
    expect(event.payload.case).toBe('callCompleted');
    if (event.payload.case !== 'callCompleted') return;
    const completed = event.payload.value;
    expect(completed.callId).toBe(answer.callId);
    expect(completed.status).toBe(CallStatus.OK);
    expect(completed.principal).toMatchObject({
      tenant: 'team-a',
      agent: 'ops_bot',
      environment: 'prod',
    });
    expect(completed.decision).toBe(DecisionEffect.ALLOW);
    expect(completed.policyIds).toEqual(['resource/es_orders/access']);
    expect(completed.arguments).toEqual({
      filters: [{ field: 'customer.email', op: 'eq', value: '***' }],
      limit: 3,
    });
    expect(completed.meta?.returned).toBe(answer.meta?.returned);
    expect(event.tenant).toBe('team-a');
    expect(event.traceId).toBe(answer.meta?.traceId);
    expect(completed.error?.code ?? ErrorCode.UNSPECIFIED).toBe(ErrorCode.UNSPECIFIED);
  });
});
