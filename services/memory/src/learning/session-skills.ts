/**
 * Skills proposed by sessions that ended well: a session that SUCCEEDED with at least two
 * successful tool calls proposes its procedure (see procedure.ts) as a skill candidate, which a
 * person then confirms or rejects like any other. The signal is the procedure's shape, so the
 * same procedure proposes at most once, ever. Confidence is fixed: one session is one piece of
 * evidence, and nothing here adds more. Safe to repeat: a repeated end finds the candidate its
 * session proposed (the proposal carries `sessionId`) rather than proposing again.
 *
 * The snapshot is the client's word; the audit trail is what happened. Every successful call
 * the snapshot records must name its Tollgate call id, and the audit trail must hold that
 * call's ok outcome, made by the session's owner in this session with the same tool; the
 * procedure is then built from the arguments audit recorded, not the snapshot's. One call that
 * does not check out and the session proposes nothing.
 */
import type { Logger } from '@tollgate/kit';
import type { CandidateBook } from './candidates.js';
import { readCandidate } from './candidates.js';
import type { AuditTrail } from './audit-trail.js';
import type { CompletedCall } from './learner.js';
import { procedureOf } from './procedure.js';
import { readRecordedSession } from '../sessions/recorded-calls.js';
import type { RecordedCall } from '../sessions/recorded-calls.js';
import type { SessionSnapshot } from '../sessions/session-book.js';
import { skillSpec } from '../capabilities/skill.js';
import type { MemoryStore } from '../store/collections.js';
import { NAME } from '../requests/names.js';
import { Problems } from '../requests/problems.js';

/** Confidence of a skill candidate from one successful session. */
export const SESSION_SKILL_CONFIDENCE = 0.5;

export interface SessionSkillDeps {
  store: MemoryStore;
  candidates: CandidateBook;
  audit: AuditTrail;
  /** How long a session's last calls may still be missing from the audit trail. */
  auditWaitMs: number;
  logger: Logger;
}

/**
 * The id of the skill candidate an ended session proposed ('' when it proposed none): proposes
 * it on the first call, finds it on a repeat.
 */
export async function skillCandidateOf(
  deps: SessionSkillDeps,
  session: SessionSnapshot,
): Promise<string> {
  if (session.ended?.outcome !== 'succeeded') return '';
  const where = { sessionId: session.sessionId, ...session.owner };
  const recorded = readRecordedSession(session.state);
  const calls = recorded.ok ? await auditedCalls(deps, session, recorded.calls) : recorded;
  const procedure = calls.ok ? procedureOf(calls.calls) : calls;
  if (!procedure.ok) {
    deps.logger.debug({ ...where, reason: procedure.reason }, 'no skill from this session');
    return '';
  }
  const { name, content, signal, evidenceCallIds, summary } = procedure.proposal;
  const problems = new Problems().match('name', name, NAME, '[a-z][a-z0-9_]{2,62}');
  skillSpec.check(content, problems);
  if (!problems.empty) {
    // Paths and reasons only: a problem's `found` may quote the session's values.
    deps.logger.warn(
      { ...where, problems: problems.details.map((d) => ({ path: d.path, message: d.message })) },
      'skill proposal dropped: it does not pass the skill check',
    );
    return '';
  }
  const proposed = await deps.candidates.propose({
    owner: session.owner,
    kind: 'skill',
    signal,
    proposal: { name, ...skillSpec.toJson(content), sessionId: session.sessionId },
    summary,
    confidence: SESSION_SKILL_CONFIDENCE,
    evidenceCallIds,
    // Derived from the calls the agent made: reviewed through another agent (review.ts).
    proposedBy: { agent: session.owner.agent, user: '' },
  });
  if (proposed !== undefined) {
    deps.logger.info({ ...where, candidateId: proposed.id }, 'skill candidate proposed');
    return proposed.id;
  }
  // The signal already proposed once: this session's own earlier end, or another session.
  const earlier = await deps.store.candidates.findOne({ ...session.owner, signal });
  if (earlier === null) return '';
  const candidate = readCandidate(earlier);
  return candidate.proposal['sessionId'] === session.sessionId ? candidate.id : '';
}

/**
 * The session's calls with each successful one replaced by what the audit trail recorded of
 * it, or why one does not check out.
 */
async function auditedCalls(
  deps: SessionSkillDeps,
  session: SessionSnapshot,
  calls: RecordedCall[],
): Promise<{ ok: true; calls: RecordedCall[] } | { ok: false; reason: string }> {
  const ok = calls.filter((call) => call.ok);
  const missingId = calls.findIndex((call) => call.ok && call.callId === undefined);
  if (missingId >= 0) return { ok: false, reason: `call ${missingId + 1} names no call id` };
  const ids = ok.map((call) => call.callId ?? '');
  const deadline = Date.now() + deps.auditWaitMs;
  let readings = await deps.audit.completedCalls(session.owner.tenant, ids);
  for (let pause = 50; ; pause *= 2) {
    if (!readings.some((r) => r.kind === 'absent') || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, 500)));
    readings = await deps.audit.completedCalls(session.owner.tenant, ids);
  }
  const audited = new Map<string, CompletedCall>();
  for (const [i, reading] of readings.entries()) {
    const step = `successful call ${i + 1}`;
    if (reading.kind === 'absent') {
      return { ok: false, reason: `${step}: the audit trail holds no ok outcome of it` };
    }
    if (reading.kind === 'refused') {
      deps.logger.error(
        { sessionId: session.sessionId, ...session.owner, reason: reading.reason, alert: true },
        'the audit trail refuses a call a session recorded',
      );
      return { ok: false, reason: `${step}: ${reading.reason}` };
    }
    const call = reading.call;
    const facts: Array<[string, string, string]> = [
      ['agent', session.owner.agent, call.owner.agent],
      ['user', session.owner.user, call.owner.user],
      ['session', session.sessionId, call.sessionId],
      ['tool', ok[i]?.tool ?? '', call.tool],
    ];
    const differs = facts.find(([, a, b]) => a !== b);
    if (differs !== undefined) {
      return { ok: false, reason: `${step}: its audit record has another ${differs[0]}` };
    }
    audited.set(call.callId, call);
  }
  const out = calls.map((call) => {
    const recorded = call.ok ? audited.get(call.callId ?? '') : undefined;
    return recorded === undefined
      ? call
      : { ...call, arguments: recorded.arguments, resource: recorded.resource };
  });
  return { ok: true, calls: out };
}
