import { AckPolicy, DeliverPolicy, jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { EVENTS_STREAM, EventTypes, PULL_OPTIONS, streamManager, subjects } from '@tollgate/kit';
import type { ConsumerMessages, JsMsg, Logger } from '@tollgate/kit';
import type { DeadLetters } from '../store/dead-letters.js';
import type { Approvals } from './approvals.js';
import { readApprovalRequested } from './requested.js';

export interface ApprovalIntakeDeps {
  nc: NatsConnection;
  /** Durable consumer name (shared by every instance of the service). */
  durable: string;
  approvals: Approvals;
  deadLetters: DeadLetters;
  logger: Logger;
  defaultTtlMs: number;
  /**
   * How far back a newly created durable starts reading (0 = only events from now on). An
   * existing durable resumes where it stopped.
   */
  replayMs: number;
}

const RETRY_DELAY_MS = 1_000;
const ACK_WAIT_MS = 30_000;

/**
 * Records approvals from `approval.requested` through a durable JetStream consumer. A message
 * is acknowledged only once its approval (or its dead letter, for a malformed event or an id
 * reused for another call) is stored; while the store is unreachable it is redelivered. The
 * approval id is the record's key, so redeliveries are recorded once.
 */
export class ApprovalIntake {
  readonly #deps: ApprovalIntakeDeps;
  #messages: ConsumerMessages | undefined;
  #loop: Promise<void> | undefined;
  #stopping = false;

  constructor(deps: ApprovalIntakeDeps) {
    this.#deps = deps;
  }

  /** Creates (or updates) the durable consumer and starts recording. */
  async start(): Promise<void> {
    this.#messages = await this.#consume();
    this.#loop = this.#pump();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#messages?.close();
    await this.#loop;
  }

  /**
   * Creates the durable when missing, starting `replayMs` back (approvals older than any expiry
   * need no replay: the stream keeps days of events), and consumes it.
   */
  async #consume(): Promise<ConsumerMessages> {
    const { nc, durable, replayMs } = this.#deps;
    const jsm = await streamManager(nc);
    const exists = await jsm.consumers.info(EVENTS_STREAM, durable).then(
      () => true,
      () => false,
    );
    if (!exists) {
      try {
        await jsm.consumers.add(EVENTS_STREAM, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          filter_subject: subjects.eventsOf(EventTypes.approvalRequested),
          ...(replayMs > 0
            ? {
                deliver_policy: DeliverPolicy.StartTime,
                opt_start_time: new Date(Date.now() - replayMs).toISOString(),
              }
            : { deliver_policy: DeliverPolicy.New }),
          // Never given up on by the server: poison messages are dead-lettered here, after storing them.
          max_deliver: -1,
          ack_wait: ACK_WAIT_MS * 1_000_000,
          max_ack_pending: 1_000,
        });
      } catch (err) {
        // Another instance created it first.
        if (!String((err as Error).message).includes('already')) throw err;
      }
    }
    const consumer = await jetstream(nc).consumers.get(EVENTS_STREAM, durable);
    return consumer.consume(PULL_OPTIONS);
  }

  async #pump(): Promise<void> {
    while (!this.#stopping) {
      try {
        const messages = this.#messages ?? (this.#messages = await this.#consume());
        for await (const msg of messages) await this.#handle(msg);
      } catch (err) {
        this.#deps.logger.error(
          { err: { message: (err as Error).message } },
          'approval consumer failed; re-subscribing',
        );
      }
      this.#messages = undefined;
      if (!this.#stopping) await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
    }
  }

  async #handle(msg: JsMsg): Promise<void> {
    const { approvals, logger } = this.#deps;
    try {
      const read = readApprovalRequested(msg.data, { defaultTtlMs: this.#deps.defaultTtlMs });
      if ('invalid' in read) {
        await this.#deadLetter(msg, read.invalid);
        msg.ack();
        return;
      }
      const outcome = await approvals.record(read.record);
      if (typeof outcome === 'object') await this.#deadLetter(msg, outcome.conflict);
      else if (outcome === 'recorded')
        logger.info(
          { approval: read.record.id, tenant: read.record.tenant, call: read.record.callId },
          'approval requested',
        );
      msg.ack();
    } catch (err) {
      logger.warn(
        { err: { message: (err as Error).message }, seq: msg.seq },
        'approval.requested not recorded; redelivering',
      );
      msg.nak(RETRY_DELAY_MS);
    }
  }

  async #deadLetter(msg: JsMsg, reason: string): Promise<void> {
    this.#deps.logger.warn({ seq: msg.seq, reason }, 'approval.requested dead-lettered');
    await this.#deps.deadLetters.put({
      streamSequence: msg.seq,
      subject: msg.subject,
      reason,
      data: Buffer.from(msg.data).toString('base64'),
      receivedAt: new Date(),
    });
  }
}
