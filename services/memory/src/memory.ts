/**
 * The memory service, transport-free: session snapshots, preference memory, candidates, saved
 * queries and skills, recall, and learning from completed calls, built from a store, an
 * announcer for `memory.written`, a clock and settings (so tests build it with real clients).
 */
import type { Principal } from '@tollgate/core';
import { createLogger } from '@tollgate/kit';
import type { Logger } from '@tollgate/kit';
import type { Announcer } from './announce.js';
import type { AuditTrail } from './learning/audit-trail.js';
import { Reviewers } from './access/review.js';
import type { Caller } from './access/review.js';
import type { LiveState } from './live/policy-view.js';
import { CandidateBook } from './learning/candidates.js';
import { CapabilityBook } from './capabilities/capability-book.js';
import type { CapabilityView } from './capabilities/capability-book.js';
import type { MemorySettings } from './config.js';
import { decayedScore } from './learning/decay.js';
import { Learner } from './learning/learner.js';
import { PreferenceBook } from './preferences/preference-book.js';
import { isTypedKind } from './preferences/typed-facts.js';
import { findInjection } from '@tollgate/core';
import { secretReason } from '@tollgate/core';
import type { ProjectionHook } from './projection/hook.js';
import { rankMemory } from './recall.js';
import type { RecallItem, RecallItemKind } from './recall.js';
import { savedQuerySpec } from './capabilities/saved-query.js';
import { SessionBook } from './sessions/session-book.js';
import type { SessionOutcome, SessionSnapshot } from './sessions/session-book.js';
import { skillCandidateOf } from './learning/session-skills.js';
import { skillSpec } from './capabilities/skill.js';
import type { MemoryStore } from './store/collections.js';
import type { PreferenceRecord, SavedQueryContent, SkillContent } from './types.js';
import { Problems } from './requests/problems.js';
import { SESSION_ID } from './requests/names.js';

export interface MemoryDeps {
  store: MemoryStore;
  /** The live policy bundles facts and reviewers are checked against (see live/policy-view.ts). */
  live: LiveState;
  announcer: Announcer;
  /** The audit trail: what memory learns from must be recorded there (audit-trail.ts). */
  audit: AuditTrail;
  settings: MemorySettings;
  clock?: () => Date;
  /** Keeps the memory bucket current (see projector.ts); none in tests that do not need it. */
  projection?: ProjectionHook;
  /** For what is dropped quietly (e.g. a skill proposal that fails the skill check). */
  logger?: Logger;
}

/** One recalled item with its score. */
export type RecallResult =
  | { score: number; kind: 'preference'; preference: PreferenceRecord }
  | { score: number; kind: 'saved_query'; view: CapabilityView<SavedQueryContent> }
  | { score: number; kind: 'skill'; view: CapabilityView<SkillContent> };

const DEFAULT_TOP_K = 10;
const MAX_TOP_K = 100;

export class Memory {
  readonly reviewers: Reviewers;
  readonly sessions: SessionBook;
  readonly preferences: PreferenceBook;
  readonly candidates: CandidateBook;
  readonly savedQueries: CapabilityBook<SavedQueryContent>;
  readonly skills: CapabilityBook<SkillContent>;
  readonly learner: Learner;
  readonly #settings: MemorySettings;
  readonly #live: LiveState;
  readonly #clock: () => Date;
  readonly #store: MemoryStore;
  readonly #audit: AuditTrail;
  readonly #logger: Logger;

  constructor(deps: MemoryDeps) {
    const clock = deps.clock ?? (() => new Date());
    const { store, announcer, settings, projection, live } = deps;
    this.#settings = settings;
    this.#live = live;
    this.reviewers = new Reviewers(live, settings);
    this.#clock = clock;
    this.#store = store;
    this.#audit = deps.audit;
    this.#logger = deps.logger ?? createLogger({ service: 'memory', level: 'silent' });
    this.sessions = new SessionBook({ store, announcer, clock, settings });
    const reviewers = this.reviewers;
    this.preferences = new PreferenceBook({
      store,
      announcer,
      clock,
      settings,
      projection,
      live,
      reviewers,
    });
    this.savedQueries = new CapabilityBook(savedQuerySpec, {
      collection: store.savedQueries,
      claims: store.claims,
      announcer,
      clock,
      reviewers,
      effectChanged: projection && ((owner, name) => projection.savedQueryChanged(owner, name)),
    });
    this.skills = new CapabilityBook(skillSpec, {
      collection: store.skills,
      claims: store.claims,
      announcer,
      clock,
      reviewers,
    });
    this.candidates = new CandidateBook({
      store,
      announcer,
      clock,
      preferences: this.preferences,
      reviewers,
      savedQueries: this.savedQueries,
      skills: this.skills,
    });
    this.learner = new Learner({
      store,
      preferences: this.preferences,
      candidates: this.candidates,
      settings,
    });
  }

  /** The caller a verified principal is: its actor, and whether it is a reviewer. */
  callerOf(principal: Principal): Caller {
    return this.reviewers.caller(principal);
  }

  /**
   * Ends a session (see SessionBook.end); one that SUCCEEDED proposes its procedure as a skill
   * candidate (see session-skills.ts). Repeating the end returns the same candidate id.
   */
  async endSession(
    principal: Principal,
    sessionId: string,
    outcome: SessionOutcome | undefined,
    expectedVersion: number | undefined,
  ): Promise<{ session: SessionSnapshot; skillCandidateId: string }> {
    const { session } = await this.sessions.end(principal, sessionId, outcome, expectedVersion);
    const skillCandidateId = await skillCandidateOf(
      {
        store: this.#store,
        candidates: this.candidates,
        audit: this.#audit,
        auditWaitMs: this.#settings.auditWaitMs,
        logger: this.#logger,
      },
      session,
    );
    return { session, skillCandidateId };
  }

  /**
   * Active preferences, approved saved queries and skills of the principal's own memory, ranked
   * for `task`. Free text nobody confirmed, or that the screen now flags, is never recalled.
   */
  async recall(
    principal: Principal,
    request: { task: string; sessionId: string; topK: number; kinds: RecallItemKind[] },
  ): Promise<RecallResult[]> {
    const problems = new Problems().text('task', request.task, { max: 4000 });
    if (request.sessionId !== '')
      problems.match('session_id', request.sessionId, SESSION_ID, 'a session id');
    if (request.topK > MAX_TOP_K)
      problems.add('top_k', 'top_k is too large', `at most ${MAX_TOP_K}`, `${request.topK}`);
    problems.throwIfAny('Invalid recall');
    const wanted = (kind: RecallItemKind) =>
      request.kinds.length === 0 || request.kinds.includes(kind);
    const now = this.#clock().getTime();
    const toolNames = this.#live.toolNames(principal.tenant);
    const preferences = wanted('preference')
      ? (await this.preferences.activeFor(principal)).filter(
          (p) => !this.#faded(p, now) && recallable(p, toolNames),
        )
      : [];
    const savedQueries = wanted('saved_query')
      ? await this.savedQueries.approvedFor(principal)
      : [];
    const skills = wanted('skill') ? await this.skills.approvedFor(principal) : [];
    const items: RecallItem[] = [
      ...preferences.map((p) => ({
        id: p.id,
        kind: 'preference' as const,
        name: p.key,
        text: p.text,
        terms: valueTerms(p.value),
        freshness: (p.lastConfirmedAt ?? p.updatedAt).getTime(),
      })),
      ...savedQueries.map(({ capability, revision }) => ({
        id: capability.id,
        kind: 'saved_query' as const,
        name: capability.name,
        text: revision.content.description,
        terms: [revision.content.tool, ...revision.content.parameters.map((p) => p.name)],
        freshness: capability.updatedAt.getTime(),
      })),
      ...skills.map(({ capability, revision }) => ({
        id: capability.id,
        kind: 'skill' as const,
        name: capability.name,
        text: `${revision.content.description} ${revision.content.instructions}`,
        terms: [...revision.content.tools, ...revision.content.inputs.map((i) => i.name)],
        freshness: capability.updatedAt.getTime(),
      })),
    ];
    const ranked = rankMemory(
      request.task,
      items,
      request.topK === 0 ? DEFAULT_TOP_K : request.topK,
    );
    const prefs = new Map(preferences.map((p) => [p.id, p]));
    const queries = new Map(savedQueries.map((v) => [v.capability.id, v]));
    const skillViews = new Map(skills.map((v) => [v.capability.id, v]));
    return ranked.flatMap(({ item, score }): RecallResult[] => {
      if (item.kind === 'preference') {
        const preference = prefs.get(item.id);
        return preference ? [{ score, kind: 'preference', preference }] : [];
      }
      if (item.kind === 'saved_query') {
        const view = queries.get(item.id);
        return view ? [{ score, kind: 'saved_query', view }] : [];
      }
      const view = skillViews.get(item.id);
      return view ? [{ score, kind: 'skill', view }] : [];
    });
  }

  /** A derived preference whose usage has decayed below half the threshold is left out. */
  #faded(preference: PreferenceRecord, now: number): boolean {
    if (preference.source !== 'derived' || preference.score === 0) return false;
    const at = (preference.lastConfirmedAt ?? preference.updatedAt).getTime();
    const score = decayedScore({ score: preference.score, at }, now, this.#settings.halfLifeMs);
    return score < this.#settings.preferenceThreshold / 2;
  }
}

/**
 * Whether a fact in effect may go to a model: a typed fact always (its value is what is shown);
 * free text (and any kind older memory stored) only once a person confirmed it and while it
 * still passes the screen, which may have learnt more since it was stored.
 */
function recallable(p: PreferenceRecord, toolNames: ReadonlySet<string>): boolean {
  if (isTypedKind(p.kind)) return true;
  return (
    p.confirmedBy !== undefined &&
    findInjection(p.text, { toolNames }) === undefined &&
    secretReason(p.text) === undefined
  );
}

function valueTerms(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}
