import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  EVENTS_STREAM,
  EventPublisher,
  EventTypes,
  consumeEvents,
  deadLetter,
  ensureEventStream,
  openBucket,
  watchBucket,
  createLogger,
} from '@tollgate/kit';
import { infra, uniqueName, eventually } from '../support/infra.js';
import { connectTestBus } from '../support/bus.js';

const logger = createLogger({ service: 'smoke', level: 'silent' });
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connectTestBus({ url: infra.natsUrl, name: 'smoke' });
  await ensureEventStream(nc);
});
afterAll(async () => {
  await nc?.drain();
});

describe('smoke - NATS JetStream', () => {
  it('jetstream - publish, durable consume, ack; a repeated event id is stored once', async () => {
    const publisher = new EventPublisher(nc);
    const id = uniqueName('evt');
    const payload = new TextEncoder().encode(JSON.stringify({ id }));
    const first = await publisher.publish(EventTypes.memoryWritten, id, payload, 'smoke');
    const again = await publisher.publish(EventTypes.memoryWritten, id, payload, 'smoke');
    expect(again.duplicate).toBe(true);
    expect(again.seq).toBe(first.seq);

    const durable = uniqueName('smoke');
    const messages = await consumeEvents(nc, { durable, types: [EventTypes.memoryWritten] });
    let found: string | undefined;
    for await (const m of messages) {
      m.ack();
      // The shared stream also holds other services' (protobuf) events; match on the msg id.
      if (m.headers?.get('Nats-Msg-Id') === id) {
        found = (JSON.parse(new TextDecoder().decode(m.data)) as { id: string }).id;
        expect(m.headers?.get('tollgate-event-type')).toBe('memory.written');
        break;
      }
    }
    await messages.close();
    expect(found).toBe(id);
    const jsm = await jetstreamManager(nc);
    await eventually(async () => {
      const info = await jsm.consumers.info(EVENTS_STREAM, durable);
      return info.num_ack_pending === 0 ? info : undefined;
    });
    await jsm.consumers.delete(EVENTS_STREAM, durable);
  });

  it('jetstream - a dead-lettered event is never redelivered', async () => {
    const tenant = uniqueName('dl').replace(/_/g, '-');
    const publisher = new EventPublisher(nc);
    const ids = [uniqueName('poison'), uniqueName('poison')];
    for (const id of ids)
      await publisher.publish(EventTypes.memoryWritten, id, new Uint8Array([0xff]), tenant);
    const durable = uniqueName('smoke_dl');
    const messages = await consumeEvents(nc, {
      durable,
      types: [EventTypes.memoryWritten],
      deliverPolicy: 'all',
      ackWaitMs: 500,
      maxDeliver: 5,
    });
    const deliveries = new Map<string, number>();
    const loop = (async () => {
      for await (const m of messages) {
        const id = m.headers?.get('Nats-Msg-Id') ?? '';
        deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
        if (ids.includes(id)) deadLetter(m, 'not an envelope:\nline two of a long reason');
        else m.ack();
      }
    })();
    const jsm = await jetstreamManager(nc);
    try {
      await eventually(() => (ids.every((id) => deliveries.has(id)) ? true : undefined), 10_000);
      // Several ack waits later: nothing came back and nothing is pending.
      await new Promise((r) => setTimeout(r, 2_000));
      const info = await jsm.consumers.info(EVENTS_STREAM, durable);
      expect(ids.map((id) => deliveries.get(id))).toEqual([1, 1]);
      expect(info.num_ack_pending).toBe(0);
      expect(info.num_redelivered).toBe(0);
    } finally {
      await messages.close();
      await loop;
      await jsm.consumers.delete(EVENTS_STREAM, durable);
    }
  });

  it('jetstream - ensureEventStream is idempotent', async () => {
    await ensureEventStream(nc);
    await ensureEventStream(nc);
    const info = await (await jetstreamManager(nc)).streams.info(EVENTS_STREAM);
    expect(info.config.subjects).toEqual(['tollgate.v1.evt.>']);
  });
});

describe('smoke - NATS KV', () => {
  it('kv - put is seen by a watcher, initial values first, then updates and deletes', async () => {
    const bucket = uniqueName('smoke_kv');
    const kv = await openBucket(nc, bucket, { history: 1 });
    await kv.put('team-a.prod.es_orders', new TextEncoder().encode('v1'));
    const seen: Array<[string, string | undefined]> = [];
    const watch = await watchBucket(
      kv,
      (key, value) => seen.push([key, value ? new TextDecoder().decode(value) : undefined]),
      logger,
    );
    await watch.ready;
    expect(seen).toEqual([['team-a.prod.es_orders', 'v1']]);
    await kv.put('team-a.prod.es_orders', new TextEncoder().encode('v2'));
    await kv.delete('team-a.prod.es_orders');
    await eventually(() => (seen.length >= 3 ? true : undefined));
    expect(seen.slice(1)).toEqual([
      ['team-a.prod.es_orders', 'v2'],
      ['team-a.prod.es_orders', undefined],
    ]);
    watch.stop();
    await kv.destroy();
  });
});
