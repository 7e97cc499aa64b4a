import type { NatsConnection } from '@nats-io/transport-node';
import { consumeEvents } from '@tollgate/kit';
import type { ConsumerMessages, JsMsg, Logger } from '@tollgate/kit';
import type { RecordDraft } from '../record.js';
import type { AuditStore, DeadLetter } from '../store.js';
import { IngestMetrics } from './metrics.js';
import { prepareMessage } from './prepare.js';
import type { PrepareLimits, Preparation } from './prepare.js';
import { ChainWriter } from './writer.js';

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

/** Counts since start, for operators and tests. */
export interface IngestCounts {
  stored: number;
  duplicates: number;
  deadLettered: number;
}

const MAX_BACKOFF_MS = 5_000;

/** What earlier tries at storing one batch already wrote. */
interface Written {
  chains: Set<string>;
  letters: Set<string>;
  /** Dead letters for records the store refused (found while writing a chain). */
  refused: DeadLetter[];
}

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
  readonly #writer: ChainWriter;
  readonly #metrics: IngestMetrics;
  readonly #now: () => Date;
  readonly #queue: JsMsg[] = [];
  #inFlight: JsMsg[] = [];
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
    this.#writer = new ChainWriter({ store: deps.store, now: this.#now });
    this.#metrics = deps.metrics ?? new IngestMetrics();
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
      } catch (err) {
        this.#deps.logger.error({ err: errInfo(err) }, 'audit consumer failed; re-subscribing');
      }
      this.#messages = undefined;
      if (!this.#stopping) await sleep(1_000);
    }
  }

  async #writeLoop(): Promise<void> {
    for (;;) {
      if (this.#queue.length === 0) {
        if (this.#stopping) return;
        await this.#waitForSignal();
        continue;
      }
      if (this.#queue.length < this.#settings.batchSize && !this.#stopping) {
        await this.#waitForSignal(this.#settings.lingerMs);
      }
      this.#inFlight = this.#queue.splice(0, this.#settings.batchSize);
      await this.#process(this.#inFlight);
      this.#inFlight = [];
    }
  }

  async #process(batch: JsMsg[]): Promise<void> {
    const now = this.#now();
    const prepared = batch.map((msg) => ({
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
    const done: Written = { chains: new Set(), letters: new Set(), refused: [] };
    let backoff = 250;
    let paused = false;
    for (;;) {
      try {
        await this.#store(prepared, done);
        break;
      } catch (err) {
        if (!paused) {
          this.#deps.logger.warn(
            { err: errInfo(err), held: batch.length + this.#queue.length },
            'audit store unavailable; ingestion paused, nothing acknowledged',
          );
          paused = true;
        }
        if (this.#stopping) return;
        await sleep(backoff);
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
      }
    }
    if (paused)
      this.#deps.logger.info({ events: batch.length }, 'audit store back; ingestion resumed');
    for (const msg of batch) msg.ack();
  }

  /** Writes a batch's records and dead letters, skipping what an earlier try wrote. */
  async #store(prepared: Array<{ msg: JsMsg; prep: Preparation }>, done: Written): Promise<void> {
    const byChain = new Map<string, RecordDraft[]>();
    const letters: DeadLetter[] = [];
    for (const { prep } of prepared) {
      if (prep.kind === 'dead') letters.push(prep.letter);
      else if (!done.chains.has(prep.chain)) {
        const drafts = byChain.get(prep.chain) ?? [];
        drafts.push(prep.draft);
        byChain.set(prep.chain, drafts);
      }
    }
    await Promise.all(
      [...byChain].map(async ([chain, drafts]) => {
        const result = await this.#writer.append(chain, drafts);
        done.chains.add(chain);
        for (const doc of result.stored) this.#metrics.recordStored(doc);
        this.#metrics.duplicates(result.duplicates.length);
        this.counts.stored += result.stored.length;
        this.counts.duplicates += result.duplicates.length;
        for (const { index, reason } of result.refused) {
          done.refused.push(refusedLetter(drafts[index]!, reason, prepared, this.#now()));
        }
      }),
    );
    for (const letter of [...letters, ...done.refused]) {
      if (done.letters.has(letter._id)) continue;
      await this.#deps.store.putDeadLetter(letter);
      done.letters.add(letter._id);
      this.counts.deadLettered++;
      this.#metrics.deadLettered();
      this.#deps.logger.error(
        {
          alert: true,
          reason: letter.reason,
          subject: letter.subject,
          stream_sequence: letter.stream_sequence,
          deliveries: letter.deliveries,
          tenant: letter.tenant,
          event_id: letter.event_id,
          type: letter.type,
        },
        'audit event dead-lettered',
      );
    }
  }

  /** Tells JetStream that every held message is still being worked on. */
  #touchHeld(): void {
    for (const msg of this.#inFlight) msg.working();
    for (const msg of this.#queue) msg.working();
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

/** A dead letter for a record Mongo refused; the original message is found by event id. */
function refusedLetter(
  draft: RecordDraft,
  reason: string,
  prepared: Array<{ msg: JsMsg; prep: Preparation }>,
  now: Date,
): DeadLetter {
  const source = prepared.find(
    (p) => p.prep.kind === 'record' && p.prep.draft._id === draft._id,
  )!.msg;
  return {
    _id: `${source.info.stream}/${source.info.streamSequence}`,
    received_at: now,
    subject: source.subject,
    stream_sequence: source.info.streamSequence,
    deliveries: source.info.deliveryCount,
    reason: `the store refused the record: ${reason}`,
    tenant: draft.tenant,
    event_id: draft.event_id,
    type: draft.type,
    data: Buffer.from(source.data).toString('base64'),
  };
}

function errInfo(err: unknown): { name: string; message: string } {
  return { name: (err as Error)?.name ?? 'Error', message: (err as Error)?.message ?? String(err) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
