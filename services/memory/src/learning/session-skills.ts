/**
 * Skills proposed by sessions that ended well: a session that SUCCEEDED with at least two
 * successful tool calls proposes its procedure (see procedure.ts) as a skill candidate, which a
 * person then confirms or rejects like any other. The signal is the procedure's shape, so the
 * same procedure proposes at most once, ever. Confidence is fixed: one session is one piece of
 * evidence, and nothing here adds more. Safe to repeat: a repeated end finds the candidate its
 * session proposed (the proposal carries `sessionId`) rather than proposing again.
 */
import type { Logger } from '@tollgate/kit';
import type { CandidateBook } from './candidates.js';
import { readCandidate } from './candidates.js';
import { extractProcedure } from './procedure.js';
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
  const procedure = extractProcedure(session.state);
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
