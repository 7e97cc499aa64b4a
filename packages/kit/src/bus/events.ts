import { headers as natsHeaders } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { EVENTS_STREAM, subjects } from '@tollgate/contracts/bus';
import type { EventType } from '@tollgate/contracts/bus';
import { storageReplicas } from './replicas.js';
import { SpanKind, inSpan, injectTrace } from './trace.js';

/**
 * Budget of one JetStream management request (stream or consumer info, add, update), ms. The
 * client's default of 5 s is shorter than a file-store consumer update takes on a loaded
 * machine, and a service that times out while starting exits: a restarted executor did.
 */
export const JETSTREAM_MANAGEMENT_TIMEOUT_MS = 20_000;

/** A JetStream manager for setting streams and consumers up (not for the call path). */
export function streamManager(nc: NatsConnection) {
  return jetstreamManager(nc, { timeout: JETSTREAM_MANAGEMENT_TIMEOUT_MS });
}

export interface EventStreamOptions {
  /** How long events are kept (default 7 days). */
  maxAgeMs?: number;
  /** Window in which a repeated message id is stored once (default 2 minutes). */
  duplicateWindowMs?: number;
}

const nanos = (ms: number) => ms * 1_000_000;

/**
 * Creates the `TOLLGATE_EVENTS` stream, or updates it when its retention differs from
 * `options`; safe to call from every service. Only a connection allowed to update streams (the
 * bus's admin) can change an existing stream, so services leave a matching one alone.
 */
export async function ensureEventStream(
  nc: NatsConnection,
  options: EventStreamOptions = {},
): Promise<void> {
  const jsm = await streamManager(nc);
  const config = {
    name: EVENTS_STREAM,
    subjects: [subjects.allEvents],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(options.maxAgeMs ?? 7 * 24 * 3600_000),
    duplicate_window: nanos(options.duplicateWindowMs ?? 120_000),
    num_replicas: storageReplicas(),
  };
  try {
    const current = (await jsm.streams.info(EVENTS_STREAM)).config;
    const same =
      current.max_age === config.max_age &&
      current.duplicate_window === config.duplicate_window &&
      current.subjects?.length === 1 &&
      current.subjects[0] === subjects.allEvents;
    // Its replica count stays as the stream was created (moving it is an operator's decision).
    if (!same)
      await jsm.streams.update(EVENTS_STREAM, { ...config, num_replicas: current.num_replicas });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    try {
      await jsm.streams.add(config);
    } catch (addErr) {
      // Another service created it between our info and add.
      if (!String((addErr as Error).message).includes('already in use')) throw addErr;
    }
  }
}

function isNotFound(err: unknown): boolean {
  const msg = String((err as Error)?.message ?? '');
  return msg.includes('not found') || (err as { code?: unknown })?.code === 404;
}

/**
 * Publishes events to JetStream and resolves only once the server has stored them. The event
 * id is the JetStream message id, so a publisher retry is stored once.
 */
export class EventPublisher {
  readonly #js: JetStreamClient;

  constructor(nc: NatsConnection) {
    this.#js = jetstream(nc);
  }

  /** Stores one event of `tenant` on `tollgate.v1.evt.<type>.<tenant>`. */
  async publish(
    type: EventType,
    eventId: string,
    payload: Uint8Array,
    tenant: string,
    timeoutMs = 5_000,
  ): Promise<{ seq: number; duplicate: boolean }> {
    const subject = subjects.event(type, tenant);
    // A producer span per event; consumers (the audit ingester) continue the trace from it.
    return inSpan(
      `publish ${type}`,
      async (span) => {
        const hdrs = injectTrace(natsHeaders());
        hdrs.set('tollgate-event-type', type);
        const ack = await this.#js.publish(subject, payload, {
          msgID: eventId,
          headers: hdrs,
          timeout: timeoutMs,
        });
        span.setAttribute('messaging.nats.stream_sequence', ack.seq);
        return { seq: ack.seq, duplicate: ack.duplicate };
      },
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'nats',
          'messaging.operation.type': 'publish',
          'messaging.destination.name': subject,
          'tollgate.event_type': type,
        },
      },
    );
  }
}

/**
 * How every event consumer pulls: each pull lives 5 s, with a heartbeat every 2.5 s. A pull is
 * held by the consumer's leader; when that NATS node dies the pull dies with it, and the client
 * (still connected to another node) only notices after two missed heartbeats before it pulls
 * again. With the client's default (30 s pulls, 15 s heartbeats) a consumer stood still for
 * 30 s after its leader's node was lost — seen in the fault campaign as audit records arriving
 * 30 s late; with these, within about 5 s.
 */
export const PULL_OPTIONS = { expires: 5_000, idle_heartbeat: 2_500 } as const;

export interface DurableConsumerOptions {
  durable: string;
  /** Event types to receive (default: all). */
  types?: EventType[];
  /** Redeliveries before a message counts as poison (default 5). */
  maxDeliver?: number;
  ackWaitMs?: number;
  maxAckPending?: number;
  /**
   * Where a consumer created by this call starts: every retained event (`all`, the default) or
   * only events published from now on (`new`). An existing consumer keeps its position.
   */
  deliverPolicy?: 'all' | 'new';
}

/** Creates (idempotently) a durable pull consumer on the events stream and starts consuming. */
export async function consumeEvents(
  nc: NatsConnection,
  options: DurableConsumerOptions,
): Promise<ConsumerMessages> {
  const jsm = await streamManager(nc);
  const filter = options.types?.map((t) => subjects.eventsOf(t));
  const config = {
    durable_name: options.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: options.deliverPolicy === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
    max_deliver: options.maxDeliver ?? 5,
    ack_wait: nanos(options.ackWaitMs ?? 30_000),
    max_ack_pending: options.maxAckPending ?? 1_000,
    ...(filter && filter.length === 1 ? { filter_subject: filter[0] } : {}),
    ...(filter && filter.length > 1 ? { filter_subjects: filter } : {}),
  };
  try {
    const existing = await jsm.consumers.info(EVENTS_STREAM, options.durable);
    // A consumer's start position cannot change once it exists.
    const update = { ...config, deliver_policy: existing.config.deliver_policy };
    await jsm.consumers.update(EVENTS_STREAM, options.durable, update);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.consumers.add(EVENTS_STREAM, config);
  }
  const consumer = await jetstream(nc).consumers.get(EVENTS_STREAM, options.durable);
  return consumer.consume(PULL_OPTIONS);
}

/**
 * Gives up on a message for good (a dead letter): the server never redelivers it, so poison
 * events cannot pile up against `max_ack_pending` and stall the consumer. The reason (one line,
 * at most 256 characters) goes into the server's MSG_TERMINATED advisory; log it as well.
 * Needs nats-server ≥ 2.10 (deploy/nats/version), which understands a terminate with a reason.
 */
export function deadLetter(msg: JsMsg, reason: string): void {
  msg.term(reason.replace(/[\r\n]+/g, ' ').slice(0, 256));
}

export type { ConsumerMessages, JsMsg };
