import type { NatsConnection } from '@nats-io/transport-node';
import { SpanKind, trace } from '@opentelemetry/api';
import { consumeEvents, extractTrace } from '@tollgate/kit';
import type { ConsumerMessages, JsMsg, Logger } from '@tollgate/kit';
import type { AuditStore } from '../store.js';
import { BatchProgress, storeBatch } from './batch.js';
import type { BatchSinks, IngestCounts, Prepared } from './batch.js';
import { IngestMetrics } from './metrics.js';
import { prepareMessage } from './prepare.js';
import type { PrepareLimits } from './prepare.js';
import { ChainWriter } from './writer.js';
import { errInfo } from './batch.js';

/** How the ingest consumer batches, retries and guards against poison messages. */
export interface IngestSettings extends PrepareLimits {
  /** Durable consumer name on the events stream. */
  durable: string;
  /** Records written per insert at most. */
  batchSize: number;
  /** How long a partial batch waits for more events (ms). */
  lingerMs: number;
  /** JetStream ack wait (ms); unacknowledged messages are redelivered after it. */
  ackWaitMs: number;
  /** Messages delivered but not yet acknowledged, at most. */
  maxAckPending: number;
}

export interface IngestDependencies {
  nc: NatsConnection;
  store: AuditStore;
  logger: Logger;
  settings: IngestSettings;
  metrics?: IngestMetrics;
  now?: () => Date;
}

const MAX_BACKOFF_MS = 5_000;

/**
 * Reads the events stream through a durable consumer and appends every event to its tenant's
 * hash chain, in batches. A message is acknowledged only after its record (or dead letter) is
 * durably stored. While Mongo is unavailable nothing is acknowledged: the batch is retried with
 * backoff and every held message is kept alive (`working`) so JetStream neither redelivers it
 * nor counts it towards the poison limit; no more than `maxAckPending` messages are held.
 */
export class AuditIngest {
  readonly #deps: IngestDependencies;
  readonly #settings: IngestSettings;
  readonly #sinks: BatchSinks;
  readonly #now: () => Date;
  readonly #queue: JsMsg[] = [];
  /** Batches taken off the queue and not yet acknowledged. */
  readonly #held = new Set<JsMsg[]>();
  #abandoned = false;
  #messages: ConsumerMessages | undefined;
  #stopping = false;
  #wake: (() => void) | undefined;
  #loops: Promise<void>[] = [];
  #keepAlive: NodeJS.Timeout | undefined;
  readonly counts: IngestCounts = { stored: 0, duplicates: 0, deadLettered: 0 };

  constructor(deps: IngestDependencies) {
    this.#deps = deps;
    this.#settings = deps.settings;
    this.#now = deps.now ?? (() => new Date());
    this.#sinks = {
      writer: new ChainWriter({ store: deps.store, now: this.#now }),
      store: deps.store,
      logger: deps.logger,
      metrics: deps.metrics ?? new IngestMetrics(),
      counts: this.counts,
      now: this.#now,
    };
  }

  /** Creates (or updates) the durable consumer and starts ingesting. */
  async start(): Promise<void> {
    this.#messages = await this.#consume();
    this.#keepAlive = setInterval(
      () => this.#touchHeld(),
      Math.max(250, Math.floor(this.#settings.ackWaitMs / 3)),
    );
    this.#loops = [this.#pump(), this.#writeLoop()];
  }

  /** Stops pulling, writes what was already received (when the store allows), then returns. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    this.#signal();
    await this.#messages?.close();
    await Promise.all(this.#loops);
    clearInterval(this.#keepAlive);
  }

  async #consume(): Promise<ConsumerMessages> {
    const s = this.#settings;
    return consumeEvents(this.#deps.nc, {
      durable: s.durable,
      // Unlimited on the server: audit itself dead-letters at `poisonDeliveries`, only after
      // storing the dead letter, so JetStream never silently gives up on an event.
      maxDeliver: -1,
      ackWaitMs: s.ackWaitMs,
      maxAckPending: s.maxAckPending,
    });
  }

  async #pump(): Promise<void> {
    while (!this.#stopping) {
      try {
        const messages = this.#messages ?? (this.#messages = await this.#consume());
        for await (const msg of messages) {
          this.#queue.push(msg);
          if (this.#queue.length >= this.#settings.batchSize) this.#signal();
          else if (this.#queue.length === 1) this.#signal();
        }
        if (!this.#stopping) this.#deps.logger.warn('audit consumer ended; re-subscribing');
      } catch (err) {
        this.#deps.logger.error({ err: errInfo(err) }, 'audit consumer failed; re-subscribing');
      }
      this.#messages = undefined;
      if (!this.#stopping) await sleep(1_000);
    }
  }

  async #writeLoop(): Promise<void> {
    // Batch n+1 is prepared (decoded, screened, drafted) while batch n is being written; the
    // writes themselves stay one at a time, in order.
    let writing: Promise<void> = Promise.resolve();
    while (!this.#abandoned) {
      if (this.#queue.length === 0) {
        if (this.#stopping) break;
        await this.#waitForSignal();
        continue;
      }
      if (this.#queue.length < this.#settings.batchSize && !this.#stopping) {
        await this.#waitForSignal(this.#settings.lingerMs);
      }
      const batch = this.#queue.splice(0, this.#settings.batchSize);
      this.#held.add(batch);
      const prepared = this.#prepare(batch);
      await writing;
      writing = this.#write(prepared).finally(() => this.#held.delete(batch));
    }
    await writing;
  }

  #prepare(batch: JsMsg[]): Prepared[] {
    const now = this.#now();
    return batch.map((msg) => ({
      msg,
      prep: prepareMessage(
        {
          subject: msg.subject,
          data: msg.data,
          deliveries: msg.info.deliveryCount,
          streamSequence: msg.info.streamSequence,
        },
        this.#settings,
        now,
      ),
    }));
  }

  /** Stores a prepared batch, retrying while the store is unavailable, then acknowledges it. */
  async #write(prepared: Prepared[]): Promise<void> {
    // One consumer span per event, a child of the publisher's span (its `traceparent`), so a
    // call's trace ends in its audit ingestion. Only the subject and stream position are set.
    const spans = prepared.map(({ msg }) =>
      tracer().startSpan(
        'audit ingest',
        {
          kind: SpanKind.CONSUMER,
          attributes: {
            'messaging.system': 'nats',
            'messaging.operation.type': 'process',
            'messaging.destination.name': msg.subject,
            'messaging.nats.stream_sequence': msg.info.streamSequence,
          },
        },
        extractTrace(msg.headers),
      ),
    );
    try {
      await this.#writeAcknowledged(prepared);
    } finally {
      for (const span of spans) span.end();
    }
  }

  async #writeAcknowledged(prepared: Prepared[]): Promise<void> {
    const progress = new BatchProgress();
    let backoff = 250;
    let paused = false;
    for (;;) {
      try {
        await storeBatch(prepared, progress, this.#sinks);
        break;
      } catch (err) {
        if (!paused) {
          this.#deps.logger.warn(
            { err: errInfo(err), held: this.#heldCount() },
            'audit store unavailable; ingestion paused, nothing acknowledged',
          );
          paused = true;
        }
        if (this.#stopping) {
          // Left unacknowledged: JetStream redelivers them to the next run.
          this.#abandoned = true;
          return;
        }
        await sleep(backoff);
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
      }
    }
    if (paused) {
      this.#deps.logger.info({ events: prepared.length }, 'audit store back; ingestion resumed');
    }
    for (const { msg } of prepared) msg.ack();
  }

  /** Tells JetStream that every held message is still being worked on. */
  #touchHeld(): void {
    for (const batch of this.#held) for (const msg of batch) msg.working();
    for (const msg of this.#queue) msg.working();
  }

  #heldCount(): number {
    let count = this.#queue.length;
    for (const batch of this.#held) count += batch.length;
    return count;
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #waitForSignal(timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const tracer = () => trace.getTracer('tollgate.audit');
