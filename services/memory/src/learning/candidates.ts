/**
 * Memory candidates: what the learner inferred from completed calls and proposes to remember —
 * a preference of a kind the gate stages, or a saved query. Nothing inferred is used until a
 * person confirms it (see review.ts for who may); a signal makes at most one candidate, ever,
 * so a rejected one is not proposed again.
 */
import { randomUUID } from 'node:crypto';
import { TollgateError } from '@tollgate/core';
import type { Announcer } from '../announce.js';
import type { CapabilityBook } from '../capabilities/capability-book.js';
import type { PreferenceBook } from '../preferences/preference-book.js';
import { canSee, isProposer } from '../access/review.js';
import type { Caller, Reviewers } from '../access/review.js';
import { ownerPrincipal } from '../preferences/preference-book.js';
import {
  checkSavedQueryName,
  fixSavedQueryParameters,
  savedQuerySpec,
} from '../capabilities/saved-query.js';
import { fixSkillInputs, skillSpec } from '../capabilities/skill.js';
import { listScope } from '../access/scope.js';
import { claimTransition, releaseTransition } from '../store/claims.js';
import { isDuplicateKey } from '@tollgate/kit';
import { findPage } from '../store/paging.js';
import type { MemoryStore, StoredDocument } from '../store/collections.js';
import { StoredDoc } from '../store/stored-doc.js';
import type {
  Actor,
  CandidateKind,
  CandidateRecord,
  CandidateStatus,
  JsonObject,
  SavedQueryContent,
  SkillContent,
} from '../types.js';
import { ITEM_ID, NAME } from '../requests/names.js';
import { Problems, TOOLS_EXPECTED } from '../requests/problems.js';

export interface CandidateDeps {
  store: MemoryStore;
  announcer: Announcer;
  clock: () => Date;
  preferences: PreferenceBook;
  reviewers: Reviewers;
  savedQueries: CapabilityBook<SavedQueryContent>;
  skills: CapabilityBook<SkillContent>;
}

export type NewCandidate = Omit<
  CandidateRecord,
  'id' | 'status' | 'createdAt' | 'decidedBy' | 'decidedAt' | 'reason' | 'createdId'
>;

export class CandidateBook {
  readonly #deps: CandidateDeps;

  constructor(deps: CandidateDeps) {
    this.#deps = deps;
  }

  /** Records a candidate unless its signal already made one; returns it when new. */
  async propose(candidate: NewCandidate): Promise<CandidateRecord | undefined> {
    if (candidate.kind === 'saved_query') {
      const name = String(candidate.proposal['name'] ?? '');
      const problems = new Problems().match('name', name, NAME, '[a-z][a-z0-9_]{2,62}');
      checkSavedQueryName(name, problems);
      problems.throwIfAny('Saved-query candidate refused');
    }
    const record: CandidateRecord = {
      ...candidate,
      id: randomUUID(),
      status: 'pending',
      createdAt: this.#deps.clock(),
      decidedBy: undefined,
      decidedAt: undefined,
      reason: '',
      createdId: '',
    };
    try {
      await this.#deps.store.candidates.insertOne(toDoc(record));
    } catch (err) {
      if (isDuplicateKey(err)) return undefined;
      throw err;
    }
    await this.#announce(record, 'proposed', candidate.proposedBy);
    return record;
  }

  async list(
    caller: Caller,
    request: {
      kind: CandidateKind | undefined;
      status: CandidateStatus | undefined;
      agent: string;
      pageSize: number;
      pageToken: string;
    },
  ): Promise<{ candidates: CandidateRecord[]; nextPageToken: string }> {
    const filter = {
      ...listScope(caller, request),
      status: request.status ?? 'pending',
      ...(request.kind !== undefined ? { kind: request.kind } : {}),
    };
    const page = await findPage(this.#deps.store.candidates, filter, {
      size: request.pageSize,
      token: request.pageToken,
    });
    return { candidates: page.docs.map(readCandidate), nextPageToken: page.nextPageToken };
  }

  /** A person confirms: what the candidate proposed is created, then the candidate is closed. */
  async confirm(
    caller: Caller,
    id: string,
    overrides: { name: string; description: string; fixed?: JsonObject },
  ): Promise<CandidateRecord> {
    const candidate = await this.#pending(caller, id);
    const reviewer = caller.actor;
    this.#deps.reviewers.assertMayReview(caller, candidate.proposedBy, candidate.owner);
    const problems = new Problems();
    if (overrides.name !== '') problems.match('name', overrides.name, NAME, '[a-z][a-z0-9_]{2,62}');
    if (candidate.kind === 'saved_query') {
      checkSavedQueryName(overrides.name || String(candidate.proposal['name'] ?? ''), problems);
    }
    problems
      .text('description', overrides.description, { max: 1000 })
      .screen('description', overrides.description, TOOLS_EXPECTED);
    problems.throwIfAny('Confirmation refused');
    const claimedAt = await this.#claimDecision(candidate.id);
    let createdId: string;
    try {
      createdId = await this.#create(candidate, overrides, caller);
    } catch (err) {
      // Refused (e.g. the name is taken): the candidate stays pending for another try.
      await releaseTransition(this.#deps.store.claims, decisionOf(candidate.id), 0, claimedAt);
      throw err;
    }
    return this.#decide(candidate, reviewer, { status: 'confirmed', createdId, reason: '' });
  }

  /** A person rejects (or the proposer withdraws); the signal will not propose it again. */
  async reject(caller: Caller, id: string, reason: string): Promise<CandidateRecord> {
    const candidate = await this.#pending(caller, id);
    const reviewer = caller.actor;
    if (!isProposer(reviewer, candidate.proposedBy)) {
      this.#deps.reviewers.assertMayReview(caller, candidate.proposedBy, candidate.owner);
    }
    new Problems()
      .text('reason', reason, { max: 500 })
      .screen('reason', reason, TOOLS_EXPECTED)
      .throwIfAny('Rejection refused');
    await this.#claimDecision(candidate.id);
    return this.#decide(candidate, reviewer, { status: 'rejected', createdId: '', reason });
  }

  async #create(
    candidate: CandidateRecord,
    overrides: { name: string; description: string; fixed?: JsonObject },
    caller: Caller,
  ): Promise<string> {
    const proposal = candidate.proposal;
    const reviewer = caller.actor;
    switch (candidate.kind) {
      case 'preference': {
        // The fact must still hold for the owner when it is confirmed (a resource may be gone).
        const kind = String(proposal['kind']);
        const fact = this.#deps.preferences.checkFact(
          kind,
          { key: String(proposal['key']), value: proposal['value'] ?? null },
          ownerPrincipal(candidate.owner, caller.principal.environment),
        );
        const pref = await this.#deps.preferences.fromCandidate(
          candidate.owner,
          { ...fact, kind },
          reviewer,
        );
        return pref.id;
      }
      case 'saved_query':
      case 'skill': {
        const book = candidate.kind === 'saved_query' ? this.#deps.savedQueries : this.#deps.skills;
        const spec = candidate.kind === 'saved_query' ? savedQuerySpec : skillSpec;
        let content = spec.fromJson(proposal) as SavedQueryContent & SkillContent;
        const fixed = overrides.fixed ?? {};
        if (Object.keys(fixed).length > 0) {
          // Only a person makes a proposed value a constant.
          const problems = new Problems();
          content = (
            candidate.kind === 'saved_query'
              ? fixSavedQueryParameters(content, fixed, problems)
              : fixSkillInputs(content, fixed, problems)
          ) as SavedQueryContent & SkillContent;
          problems.throwIfAny('Confirmation refused');
        }
        if (overrides.description !== '') content.description = overrides.description;
        const view = await (book as CapabilityBook<typeof content>).createApproved({
          id: `c-${candidate.id}`,
          owner: candidate.owner,
          name: overrides.name !== '' ? overrides.name : String(proposal['name']),
          content,
          proposedBy: candidate.proposedBy,
          approver: reviewer,
        });
        return view.capability.id;
      }
    }
  }

  async #decide(
    candidate: CandidateRecord,
    reviewer: Actor,
    decision: { status: 'confirmed' | 'rejected'; createdId: string; reason: string },
  ): Promise<CandidateRecord> {
    const now = this.#deps.clock();
    // The decision was claimed (#claimDecision); the status filter only guards.
    const doc = await this.#deps.store.candidates.findOneAndUpdate(
      { _id: candidate.id, status: 'pending' },
      { $set: { ...decision, decidedBy: reviewer, decidedAt: now } },
      { returnDocument: 'after' },
    );
    if (doc === null)
      throw new TollgateError(
        'VERSION_CONFLICT',
        `Candidate ${candidate.id} was decided meanwhile.`,
      );
    const decided = readCandidate(doc);
    await this.#announce(decided, decision.status, reviewer);
    return decided;
  }

  /**
   * Claims the one decision a candidate gets: concurrent confirmations and rejections race on
   * an insert (see `claimTransition`) and every loser is VERSION_CONFLICT. The winner reads the
   * candidate again, so a decision made before its claim still stands. Returns the claim time.
   */
  async #claimDecision(id: string): Promise<Date> {
    const at = this.#deps.clock();
    if (!(await claimTransition(this.#deps.store.claims, decisionOf(id), 0, at))) {
      throw new TollgateError('VERSION_CONFLICT', `Candidate ${id} is being decided meanwhile.`);
    }
    const doc = await this.#deps.store.candidates.findOne({ _id: id });
    const status = doc === null ? 'deleted' : readCandidate(doc).status;
    if (status !== 'pending') {
      throw new TollgateError('VERSION_CONFLICT', `Candidate ${id} was already ${status}.`);
    }
    return at;
  }

  async #pending(caller: Caller, id: string): Promise<CandidateRecord> {
    new Problems().match('id', id, ITEM_ID, 'a candidate id').throwIfAny('Invalid request');
    const doc = await this.#deps.store.candidates.findOne({ _id: id });
    const candidate = doc === null ? undefined : readCandidate(doc);
    if (candidate === undefined || !canSee(caller, candidate.owner)) {
      throw new TollgateError('NOT_FOUND', `Candidate ${id} not found.`);
    }
    if (candidate.status !== 'pending') {
      throw new TollgateError(
        'VERSION_CONFLICT',
        `Candidate ${id} was already ${candidate.status}.`,
      );
    }
    return candidate;
  }

  async #announce(
    candidate: CandidateRecord,
    write: 'proposed' | 'confirmed' | 'rejected',
    by: Actor,
  ): Promise<void> {
    await this.#deps.announcer.announce({
      owner: candidate.owner,
      kind: 'candidate',
      id: candidate.id,
      version: 0,
      write,
      writtenBy: by,
    });
  }
}

/** The claim id of a candidate's decision (pending = transition 0). */
function decisionOf(id: string): string {
  return `candidate:${id}`;
}

function toDoc(c: CandidateRecord): StoredDocument {
  return {
    _id: c.id,
    ...c.owner,
    kind: c.kind,
    signal: c.signal,
    proposalJson: JSON.stringify(c.proposal),
    summary: c.summary,
    confidence: c.confidence,
    evidenceCallIds: c.evidenceCallIds,
    status: c.status,
    proposedBy: c.proposedBy,
    createdAt: c.createdAt,
    decidedBy: c.decidedBy ?? null,
    decidedAt: c.decidedAt ?? null,
    reason: c.reason,
    createdId: c.createdId,
  };
}

export function readCandidate(doc: StoredDocument): CandidateRecord {
  const d = new StoredDoc('memory_candidates', doc);
  return {
    id: d.string('_id'),
    owner: d.owner(),
    kind: d.oneOf('kind', ['preference', 'saved_query', 'skill'] as const),
    signal: d.string('signal'),
    proposal: d.jsonObject('proposalJson'),
    summary: d.string('summary'),
    confidence: d.number('confidence'),
    evidenceCallIds: d.strings('evidenceCallIds'),
    status: d.oneOf('status', ['pending', 'confirmed', 'rejected'] as const),
    proposedBy: d.actor('proposedBy'),
    createdAt: d.date('createdAt'),
    decidedBy: d.optionalActor('decidedBy'),
    decidedAt: d.optionalDate('decidedAt'),
    reason: d.string('reason'),
    createdId: d.string('createdId'),
  };
}
