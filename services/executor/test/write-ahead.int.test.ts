import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { timestampMs } from '@bufbuild/protobuf/wkt';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { EVENTS_STREAM, EventTypes, decodeEnvelope, subjects } from '@tollgate/kit';
import { ORDERS_MAPPING, ordersResource } from '../../../test/fixtures/orders.js';
import { uniqueName } from '../../../test/support/infra.js';
import { ES_URL, TENANT, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';

let h: Harness;
let jsm: JetStreamManager;
const index = uniqueName('tg_exec_wal').toLowerCase();

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  await h.es.indices.create({ index, mappings: ORDERS_MAPPING as never });
  await h.es.index({
    index,
    id: '12345',
    document: { id: '12345', tenant_id: TENANT, status: 'paid', amount: 1, currency: 'EUR' },
    refresh: true,
  });
  const descriptor = ordersResource({ endpoint: ES_URL, index, readonly: false });
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  h.running = await h.startExecutor();
  jsm = await jetstreamManager(h.nc);
});
afterAll(async () => {
  await h?.es.indices.delete({ index, ignore_unavailable: true });
  await h?.stop();
});

const byId = { filters: [{ field: 'id', op: 'eq', value: '12345' }] };

/** The events JetStream holds for one call, of one type (what audit will read). */
async function stored(callId: string, type: string): Promise<EventEnvelope[]> {
  const found: EventEnvelope[] = [];
  const info = await jsm.streams.info(EVENTS_STREAM);
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const msg = await jsm.streams.getMessage(EVENTS_STREAM, { seq }).catch(() => null);
    if (msg === null || !msg.subject.startsWith(`tollgate.v1.evt.${type}.`)) continue;
    const event = decodeEnvelope(msg.data);
    const p = event.payload;
    if ((p.case === 'callStarted' || p.case === 'callCompleted') && p.value.callId === callId)
      found.push(event);
  }
  return found;
}

/** Replaces the events stream's subjects, so JetStream stores only what they cover. */
async function storeOnly(subjectsCovered: string[]): Promise<void> {
  const config = (await jsm.streams.info(EVENTS_STREAM)).config;
  await jsm.streams.update(EVENTS_STREAM, { ...config, subjects: subjectsCovered });
}

async function storeEverything(): Promise<void> {
  await storeOnly([subjects.allEvents]);
}

describe('write-ahead - call.started is durable before any answer', () => {
  it('write-ahead - a read answered ok has its call.started stored already, and call.completed follows', async () => {
    const answer = await h.call('es_orders_search', byId, { sessionId: 'wal-read' });
    expect(answer.status).toBe('ok');
    // Read back from JetStream at once: stored before the answer left the executor.
    const [started] = await stored(answer.callId, EventTypes.callStarted);
    expect(started?.tenant).toBe(TENANT);
    if (started?.payload.case !== 'callStarted') throw new Error('no call.started stored');
    const s = started.payload.value;
    expect(s).toMatchObject({
      sessionId: 'wal-read',
      tool: 'es_orders_search',
      resource: 'es_orders',
      resourceVersion: 1,
    });
    expect(s.arguments).toEqual(byId);
    expect(timestampMs(s.deadline!)).toBeGreaterThan(timestampMs(s.startedAt!));
    const completed = await h.eventOf(answer.callId, 'call.completed', 'OK');
    if (completed.payload.case !== 'callCompleted') throw new Error('not a completion');
    expect(completed.payload.value.toolVersion).toBe(s.toolVersion);
    expect(completed.traceId).toBe(started.traceId);
    await expect.poll(async () => (await stored(answer.callId, 'call.completed')).length).toBe(1);
  });

  it('write-ahead - a call refused by validation publishes no call.started', async () => {
    const answer = await h.call('es_orders_search', { filters: [{ field: 'nope' }] });
    expect(answer.error?.code).toBe('ARGUMENTS_INVALID');
    expect(await stored(answer.callId, EventTypes.callStarted)).toEqual([]);
    expect(await stored(answer.callId, EventTypes.callCompleted)).toHaveLength(1);
  });

  it('write-ahead - a write whose call.started cannot be stored is not sent upstream', async () => {
    await storeOnly([
      subjects.eventsOf(EventTypes.callCompleted),
      subjects.eventsOf(EventTypes.callDenied),
    ]);
    try {
      const answer = await h.call(
        'es_orders_write',
        { id: 'wal-1', document: { status: 'paid', amount: 1, currency: 'EUR' } },
        { agent: 'ops_bot', idempotencyKey: 'wal-key-1' },
      );
      expect(answer.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', category: 'retryable' });
      expect(answer.error?.message).toBe(
        'The call could not be recorded in the audit trail, so it was not run; nothing was written. Retry shortly.',
      );
      const doc = await h.es.get({ index, id: 'wal-1' }, { ignore: [404] });
      expect(doc.found).toBe(false);
      // The refusal itself is in the audit trail.
      expect(await stored(answer.callId, EventTypes.callCompleted)).toHaveLength(1);
    } finally {
      await storeEverything();
    }
  });

  it('write-ahead - a read whose call.started cannot be stored is answered only once its call.completed is', async () => {
    await storeOnly([subjects.eventsOf(EventTypes.callCompleted)]);
    try {
      const answer = await h.call('es_orders_search', byId);
      expect(answer.status).toBe('ok');
      expect(await stored(answer.callId, EventTypes.callCompleted)).toHaveLength(1);
    } finally {
      await storeEverything();
    }
  });

  it('write-ahead - a write with its call.started stored runs and is answered', async () => {
    const answer = await h.call(
      'es_orders_write',
      { id: 'wal-2', document: { status: 'paid', amount: 2, currency: 'EUR' } },
      { agent: 'ops_bot', idempotencyKey: 'wal-key-2' },
    );
    expect(answer.status).toBe('ok');
    expect(await stored(answer.callId, EventTypes.callStarted)).toHaveLength(1);
    const doc = await h.es.get({ index, id: 'wal-2' }, { ignore: [404] });
    expect(doc.found).toBe(true);
    await expect.poll(async () => (await stored(answer.callId, 'call.completed')).length).toBe(1);
  });
});
