/**
 * The durable JetStream consumer that feeds the learner. A `call.completed` message is only a
 * pointer: the call learnt from is the one the audit trail records (audit-trail.ts), and it
 * must agree with the message on who made it, in which session, with which tool. An event that
 * is not a valid envelope of a known schema version, or whose payload lacks what learning
 * needs, is dead-lettered (terminated and logged); one whose call audit has not recorded yet is
 * retried for `auditWaitMs` after it reached the stream, then dropped; one audit refuses (its
 * chain breaks) or contradicts is dropped with an alert. A failure to learn (e.g. the store is
 * down) is retried by redelivery.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { EventTypes, consumeEvents, deadLetter } from '@tollgate/kit';
import type { JsMsg, Logger } from '@tollgate/kit';
import type { AuditTrail } from './audit-trail.js';
import { readCallCompleted } from './call-reading.js';
import type { CompletedCall, Learner } from './learner.js';

/** What became of one `call.completed` message (for logs and tests). */
export type CallHandling =
  | { kind: 'learnt'; call: CompletedCall }
  | { kind: 'waiting' }
  /** `callId` is the event's, when it could be read. */
  | { kind: 'dropped'; reason: string; callId?: string };

/** Retry delays while audit has not recorded the call yet. */
const AUDIT_RETRY_MS = [100, 250, 500, 1_000, 2_000];

/** A running consumer; `stop` finishes the message in hand and returns. */
export interface CallLearning {
  stop(): Promise<void>;
}

/** Starts consuming `call.completed` with the durable `durable` and learning from each. */
export async function startCallLearning(deps: {
  nc: NatsConnection;
  durable: string;
  /** Where a new durable starts (default: every retained event). */
  learnFrom?: 'all' | 'new';
  learner: Learner;
  audit: AuditTrail;
  /** How long after reaching the stream a call may still be missing from the audit trail. */
  auditWaitMs: number;
  logger: Logger;
  /** Told what became of each message (tests). */
  onHandled?: (handling: CallHandling) => void;
}): Promise<CallLearning> {
  const messages = await consumeEvents(deps.nc, {
    durable: deps.durable,
    types: [EventTypes.callCompleted],
    deliverPolicy: deps.learnFrom ?? 'all',
  });
  const loop = (async () => {
    for await (const msg of messages) await handle(msg, deps);
  })();
  return {
    async stop() {
      await messages.close();
      await loop;
    },
  };
}

type HandleDeps = Parameters<typeof startCallLearning>[0];

async function handle(msg: JsMsg, deps: HandleDeps): Promise<void> {
  const handling = await handleOne(msg, deps);
  deps.onHandled?.(handling);
}

async function handleOne(msg: JsMsg, deps: HandleDeps): Promise<CallHandling> {
  const reading = readCallCompleted(msg.data);
  if (!reading.ok) {
    deps.logger.warn({ seq: msg.seq, reason: reading.reason }, 'call.completed dead-lettered');
    deadLetter(msg, reading.reason);
    return { kind: 'dropped', reason: reading.reason };
  }
  const pointer = reading.call;
  const where = { seq: msg.seq, tenant: pointer.owner.tenant, callId: pointer.callId };
  if (!pointer.ok) {
    msg.ack();
    return { kind: 'dropped', reason: 'the call did not succeed', callId: pointer.callId };
  }
  try {
    const audited = await deps.audit.completedCall(pointer.owner.tenant, pointer.callId);
    if (audited.kind === 'absent') {
      const age = Date.now() - Number(msg.info.timestampNanos / 1_000_000);
      if (age < deps.auditWaitMs) {
        const delay = AUDIT_RETRY_MS[Math.min(msg.info.deliveryCount, AUDIT_RETRY_MS.length) - 1];
        msg.nak(delay);
        return { kind: 'waiting' };
      }
      const reason = 'the audit trail holds no ok outcome of this call';
      deps.logger.warn({ ...where, reason }, 'call.completed not learnt from');
      msg.term(reason);
      return { kind: 'dropped', reason, callId: pointer.callId };
    }
    if (audited.kind === 'refused') {
      deps.logger.error(
        { ...where, reason: audited.reason, alert: true },
        'call.completed not learnt from: the audit trail refuses it',
      );
      msg.term(audited.reason);
      return { kind: 'dropped', reason: audited.reason, callId: pointer.callId };
    }
    const mismatch = disagreement(pointer, audited.call);
    if (mismatch !== undefined) {
      const reason = `the event does not match its audit record (${mismatch})`;
      deps.logger.error({ ...where, reason, alert: true }, 'call.completed not learnt from');
      msg.term(reason);
      return { kind: 'dropped', reason, callId: pointer.callId };
    }
    const lesson = await deps.learner.learn(audited.call);
    if (lesson.preferences.length + lesson.candidates.length > 0) {
      deps.logger.info({ callId: pointer.callId, ...lesson }, 'learned from a call');
    }
    msg.ack();
    return { kind: 'learnt', call: audited.call };
  } catch (err) {
    deps.logger.warn(
      { callId: pointer.callId, err: { message: (err as Error).message } },
      'learning failed; the event will be redelivered',
    );
    msg.nak(1_000);
    return { kind: 'waiting' };
  }
}

/** Which fact of the call the event and the audit record disagree on, if any. */
function disagreement(event: CompletedCall, audited: CompletedCall): string | undefined {
  const facts: Array<[string, string, string]> = [
    ['agent', event.owner.agent, audited.owner.agent],
    ['user', event.owner.user, audited.owner.user],
    ['environment', event.environment, audited.environment],
    ['session', event.sessionId, audited.sessionId],
    ['tool', event.tool, audited.tool],
    ['resource', event.resource, audited.resource],
  ];
  return facts.find(([, a, b]) => a !== b)?.[0];
}
