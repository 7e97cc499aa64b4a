/**
 * Completion events (`call.completed`) as seen by one client: a single core NATS subscription
 * on one subject — an agent's own completion notices, or a subscriber's tenant's events —
 * opened while anyone listens and closed when the last listener leaves.
 */
import { fromBinary } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { EventEnvelopeSchema } from '@tollgate/contracts/events/v1';
import type { CallCompleted } from '@tollgate/contracts/events/v1';
import type { ToolCallError } from './errors.js';
import { readMeta } from './result.js';
import type { CallMeta } from './result.js';
import { errorFromProto } from './wire-errors.js';

/** Envelope schema versions this SDK understands. */
const SCHEMA_VERSION = 1;

export type CompletionStatus = 'ok' | 'error' | 'pending_approval' | 'accepted';

/** One `call.completed` event, decoded. It carries no result data (poll for that). */
export interface CompletionEvent {
  eventId: string;
  occurredAt: Date | undefined;
  traceId: string;
  callId: string;
  sessionId: string;
  tenant: string;
  principal: { tenant: string; agent: string; user: string; environment: string } | undefined;
  /** The tool that ran: for a saved-query call, its base tool (see `savedQuery`). */
  tool: string;
  toolVersion: string;
  resource: string;
  /** Set when the call went through a saved query (`sq_<name>`). */
  savedQuery?: { id: string; name: string; revision: number; tool: string };
  status: CompletionStatus;
  /** Set when status is `error`. */
  error?: ToolCallError;
  /** Set when the call went through an approval. */
  approvalId?: string;
  idempotencyKey?: string;
  meta: CallMeta | undefined;
}

/** Listening to completion events; `close()` stops it (idempotent). */
export interface CompletionSubscription {
  close(): void;
}

export type CompletionListener = (event: CompletionEvent) => void;

const statusNames: Partial<Record<CallStatus, CompletionStatus>> = {
  [CallStatus.OK]: 'ok',
  [CallStatus.ERROR]: 'error',
  [CallStatus.PENDING_APPROVAL]: 'pending_approval',
  [CallStatus.ACCEPTED]: 'accepted',
};

/**
 * Decodes one event message. Returns undefined for what is not a completion event this SDK
 * understands (other types, unknown schema versions, undecodable bytes, no status).
 */
export function decodeCompletion(data: Uint8Array): CompletionEvent | undefined {
  let envelope;
  try {
    envelope = fromBinary(EventEnvelopeSchema, data);
  } catch {
    return undefined;
  }
  if (envelope.schemaVersion !== SCHEMA_VERSION || envelope.payload.case !== 'callCompleted')
    return undefined;
  const completed: CallCompleted = envelope.payload.value;
  const status = statusNames[completed.status];
  if (status === undefined || completed.callId === '') return undefined;
  const p = completed.principal;
  return {
    eventId: envelope.eventId,
    occurredAt: envelope.occurredAt ? timestampDate(envelope.occurredAt) : undefined,
    traceId: envelope.traceId,
    callId: completed.callId,
    sessionId: completed.sessionId,
    tenant: envelope.tenant,
    principal: p
      ? { tenant: p.tenant, agent: p.agent, user: p.user, environment: p.environment }
      : undefined,
    tool: completed.tool,
    toolVersion: completed.toolVersion,
    resource: completed.resource,
    ...(completed.savedQuery
      ? {
          savedQuery: {
            id: completed.savedQuery.id,
            name: completed.savedQuery.name,
            revision: completed.savedQuery.revision,
            tool: completed.savedQuery.tool,
          },
        }
      : {}),
    status,
    ...(status === 'error' ? { error: errorFromProto(completed.error) } : {}),
    ...(completed.approvalId !== '' ? { approvalId: completed.approvalId } : {}),
    ...(completed.idempotencyKey !== '' ? { idempotencyKey: completed.idempotencyKey } : {}),
    meta: readMeta(completed.meta),
  };
}

/** Fan-out of completion events to listeners over one ref-counted subscription. */
export class CompletionFeed {
  readonly #nc: NatsConnection;
  readonly #subject: string;
  readonly #listeners = new Set<CompletionListener>();
  readonly #onError: (err: unknown) => void;
  #sub: Subscription | undefined;

  constructor(nc: NatsConnection, subject: string, onError: (err: unknown) => void) {
    this.#nc = nc;
    this.#subject = subject;
    this.#onError = onError;
  }

  /**
   * Starts delivering events to `listener`. The subscription is registered with the server
   * before this returns, in order with later publishes on the same connection — so a call sent
   * afterwards cannot complete unseen.
   */
  listen(listener: CompletionListener): CompletionSubscription {
    this.#listeners.add(listener);
    if (this.#sub === undefined) this.#sub = this.#open();
    return { close: () => this.#remove(listener) };
  }

  get listening(): number {
    return this.#listeners.size;
  }

  close(): void {
    this.#listeners.clear();
    this.#sub?.unsubscribe();
    this.#sub = undefined;
  }

  #remove(listener: CompletionListener): void {
    if (!this.#listeners.delete(listener) || this.#listeners.size > 0) return;
    this.#sub?.unsubscribe();
    this.#sub = undefined;
  }

  #open(): Subscription {
    const sub = this.#nc.subscribe(this.#subject);
    void (async () => {
      for await (const msg of sub) {
        const event = decodeCompletion(msg.data);
        if (event === undefined) continue;
        for (const listener of [...this.#listeners]) {
          try {
            listener(event);
          } catch (err) {
            this.#onError(err);
          }
        }
      }
    })().catch(this.#onError);
    return sub;
  }
}
