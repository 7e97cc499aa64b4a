/**
 * Preference memory (long-term, low risk): facts about a user or agent, one per (owner, key).
 * Facts are typed (see typed-facts.ts): a typed fact's value is checked against live state and
 * takes effect at once when its kind is auto-written (`TOLLGATE_MEMORY_AUTO_KINDS`), otherwise
 * it is staged; `free_text` is always staged and takes effect only once a reviewer confirms
 * it. A write is recorded truthfully: `stated` only when a reviewer (a person at a review
 * surface) wrote it, `agent` for any agent — with or without a user claim — and `derived` for
 * what memory learnt from calls. No agent replaces what a person stated or confirmed. Every
 * write is screened; facts can be listed, corrected, confirmed and forgotten.
 */
import { randomUUID } from 'node:crypto';
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import type { Announcer } from '../announce.js';
import { decayedScore } from '../learning/decay.js';
import type { LiveState } from '../live/policy-view.js';
import type { ProjectionHook } from '../projection/hook.js';
import { canSee } from '../access/review.js';
import type { Caller, Reviewers } from '../access/review.js';
import { listScope, useScope, writeOwner } from '../access/scope.js';
import { findInjection } from '@tollgate/core';
import { claimTransition, contentionPause } from '../store/claims.js';
import { isDuplicateKey } from '@tollgate/kit';
import { findPage } from '../store/paging.js';
import { ownedId } from '../store/collections.js';
import type { MemoryStore, StoredDocument } from '../store/collections.js';
import { readPreference } from './preference-doc.js';
import { FREE_TEXT, PREFERENCE_KINDS, checkTypedFact, isTypedKind } from './typed-facts.js';
import type { TypedFact } from './typed-facts.js';
import { MEMORY_ACTOR } from '../types.js';
import type {
  Actor,
  JsonValue,
  Owner,
  PreferenceRecord,
  PreferenceSource,
  PreferenceStatus,
} from '../types.js';
import { ITEM_ID, PREFERENCE_KEY, SESSION_ID } from '../requests/names.js';
import { Problems, TOOLS_EXPECTED, preview } from '../requests/problems.js';

export interface PreferenceDeps {
  store: MemoryStore;
  announcer: Announcer;
  clock: () => Date;
  settings: { autoKinds: string[]; halfLifeMs: number };
  live: LiveState;
  reviewers: Reviewers;
  /** Told after every write, before it is announced (see projector.ts). */
  projection?: Pick<ProjectionHook, 'preferenceChanged'>;
}

export interface PreferenceInput {
  key: string;
  kind: string;
  value: JsonValue | undefined;
  text: string;
  user: string;
  /** Whose memory (empty: the caller's agent; another agent only for a reviewer). */
  agent: string;
  sessionId: string;
}

/** A fact derived from usage, offered to the store by the learner. */
export interface DerivedFact {
  owner: Owner;
  /** The environment of the calls it was learnt from (to check it against live state). */
  environment: string;
  key: string;
  kind: string;
  value: JsonValue;
  text: string;
  score: number;
}

/** Derived facts are refreshed at most this often when nothing about them changed. */
const REFRESH_MS = 24 * 3600_000;
/** Free-text facts of one owner screened together with a new one (split instructions). */
const SCREENED_ALONGSIDE = 200;

/** The principal whose memory `owner` is, in `environment` (for checks against live state). */
export function ownerPrincipal(owner: Owner, environment: string): Principal {
  return {
    tenant: owner.tenant,
    agent: owner.agent,
    environment,
    ...(owner.user !== '' ? { user: owner.user } : {}),
  };
}

export class PreferenceBook {
  readonly #deps: PreferenceDeps;

  constructor(deps: PreferenceDeps) {
    this.#deps = deps;
  }

  async list(
    caller: Caller,
    request: {
      user: string;
      status: PreferenceStatus | undefined;
      agent: string;
      pageSize: number;
      pageToken: string;
    },
  ): Promise<{ preferences: PreferenceRecord[]; nextPageToken: string }> {
    const filter = {
      ...listScope(caller, request),
      ...(request.status !== undefined ? { status: request.status } : {}),
    };
    const page = await findPage(this.#deps.store.preferences, filter, {
      size: request.pageSize,
      token: request.pageToken,
    });
    return { preferences: page.docs.map(readPreference), nextPageToken: page.nextPageToken };
  }

  /** Active preferences the principal's own memory holds (for recall). */
  async activeFor(principal: Principal, limit = 500): Promise<PreferenceRecord[]> {
    const docs = await this.#deps.store.preferences
      .find({ ...useScope(principal), status: 'active' })
      .limit(limit)
      .toArray();
    return docs.map(readPreference);
  }

  /** States or corrects a fact. See the module comment for when it takes effect. */
  async put(caller: Caller, input: PreferenceInput): Promise<PreferenceRecord> {
    const { principal, actor: writer } = caller;
    const kind = input.kind === '' ? FREE_TEXT : input.kind;
    const problems = new Problems();
    if (input.sessionId !== '') {
      problems.match('session_id', input.sessionId, SESSION_ID, '1-128 of A-Z a-z 0-9 . _ : -');
    }
    const owner = writeOwner(principal, input.user, input.agent, caller.reviewer);
    let fact: TypedFact | undefined;
    if (!PREFERENCE_KINDS.includes(kind)) {
      problems.add(
        'kind',
        'kind is not a preference kind',
        PREFERENCE_KINDS.join(', '),
        preview(kind),
      );
    } else if (isTypedKind(kind)) {
      if (input.key !== '') {
        problems.match('key', input.key, PREFERENCE_KEY, '[a-z0-9][a-z0-9_.:-]{0,127}');
      }
      if (input.text.trim() !== '') {
        problems.add(
          'text',
          `the words of a ${kind} fact are written by memory from its value; leave text empty`,
          'empty',
        );
      }
      if (input.value === undefined) problems.add('value', 'value is required', `a ${kind} value`);
      else {
        problems.screen('value', input.value, TOOLS_EXPECTED);
        if (problems.empty) {
          fact = checkTypedFact(
            kind,
            { key: input.key, value: input.value },
            ownerPrincipal(owner, principal.environment),
            this.#deps.live,
            problems,
          );
        }
      }
    } else {
      problems
        .match('key', input.key, PREFERENCE_KEY, '[a-z0-9][a-z0-9_.:-]{0,127}')
        .text('text', input.text, { max: 500, required: true })
        .screen('key', input.key, TOOLS_EXPECTED)
        .screen('text', input.text, { toolNames: this.#deps.live.toolNames(owner.tenant) });
      if (input.value !== undefined && input.value !== null) {
        problems.add(
          'value',
          'a free_text fact has no value: the fact is its text',
          'null or unset',
        );
      }
      fact = { key: input.key, value: null, text: input.text.trim() };
    }
    problems.throwIfAny('Preference refused');
    if (fact === undefined) throw new Error('a checked preference has no fact');
    if (kind === FREE_TEXT) await this.#screenAlongside(owner, fact);
    const typed: TypedFact = fact;
    // A typed fact takes effect at once when its kind is auto-written, or when a reviewer states
    // it in their own memory (or agent-wide, without four eyes); free text never does.
    const ownStatement =
      caller.reviewer &&
      (owner.user === writer.user || (owner.user === '' && !this.#deps.reviewers.fourEyes));
    const status: PreferenceStatus =
      kind !== FREE_TEXT && (this.#deps.settings.autoKinds.includes(kind) || ownStatement)
        ? 'active'
        : 'proposed';
    const source: PreferenceSource = caller.reviewer ? 'stated' : 'agent';
    const now = this.#deps.clock();
    const fields = {
      kind,
      valueJson: JSON.stringify(typed.value),
      text: typed.text,
      status,
      source,
      sessionId: input.sessionId,
      createdBy: writer,
      confirmedBy: null,
      updatedAt: now,
      lastConfirmedAt: status === 'active' ? now : null,
      score: 0,
    };
    const written = await this.#upsert(owner, typed.key, (current) => {
      if (current?.status === 'active' && !caller.reviewer) {
        if (current.source === 'stated' || current.confirmedBy !== undefined) {
          throw new TollgateError(
            'POLICY_DENIED',
            `Preference ${typed.key} was ${current.source === 'stated' ? 'stated' : 'confirmed'} by a person; an agent cannot replace it. A reviewer may correct it, or it can be forgotten first.`,
          );
        }
        if (status === 'proposed') {
          throw new TollgateError(
            'POLICY_DENIED',
            `Preference ${typed.key} is in effect; an agent cannot change it without a person. Forget it first, or have a reviewer state the change.`,
          );
        }
      }
      return fields;
    });
    await this.#project(written.owner, written.key);
    await this.#announce(
      written,
      written.version === 1 ? (status === 'active' ? 'created' : 'proposed') : 'updated',
      writer,
    );
    return written;
  }

  /** A reviewer confirms a staged fact, or re-confirms one in effect (see review.ts). */
  async confirm(caller: Caller, id: string): Promise<PreferenceRecord> {
    const current = await this.#visible(caller, id);
    this.#deps.reviewers.assertMayReview(caller, current.createdBy, current.owner);
    this.#recheck(current, caller.principal.environment);
    const reviewer = caller.actor;
    const now = this.#deps.clock();
    const changed = () =>
      new TollgateError('VERSION_CONFLICT', `Preference ${id} changed meanwhile; read it again.`);
    // One confirmation per version: the claim decides, the version filter only guards.
    if (!(await claimTransition(this.#deps.store.claims, id, current.version, now)))
      throw changed();
    const doc = await this.#deps.store.preferences.findOneAndUpdate(
      { _id: id, version: current.version },
      {
        $set: {
          status: 'active',
          confirmedBy: reviewer,
          lastConfirmedAt: now,
          updatedAt: now,
          version: current.version + 1,
        },
      },
      { returnDocument: 'after' },
    );
    if (doc === null) throw changed();
    const confirmed = readPreference(doc);
    await this.#project(confirmed.owner, confirmed.key);
    await this.#announce(confirmed, 'confirmed', reviewer);
    return confirmed;
  }

  /** Deletes a fact; a derived one is never derived again. */
  async forget(caller: Caller, id: string): Promise<void> {
    const current = await this.#visible(caller, id);
    if (current.source === 'derived') {
      await this.#deps.store.forgotten
        .insertOne({
          _id: ownedId(current.owner, 'preference', current.key),
          forgottenAt: this.#deps.clock(),
        })
        .catch((err: unknown) => {
          if (!isDuplicateKey(err)) throw err;
        });
    }
    const result = await this.#deps.store.preferences.deleteOne({ _id: id });
    await this.#project(current.owner, current.key);
    if (result.deletedCount === 1) await this.#announce(current, 'deleted', caller.actor);
  }

  /**
   * A typed fact for `principal`'s memory, checked against live state; INVALID_ARGUMENT when it
   * does not hold (e.g. the resource is gone), POLICY_UNAVAILABLE when it cannot be checked.
   */
  checkFact(
    kind: string,
    fact: { key: string; value: JsonValue },
    principal: Principal,
  ): TypedFact {
    const problems = new Problems();
    const checked = isTypedKind(kind)
      ? checkTypedFact(kind, fact, principal, this.#deps.live, problems)
      : undefined;
    if (!isTypedKind(kind)) problems.add('kind', `${kind} is not a typed kind`);
    problems.throwIfAny(`Preference ${fact.key} does not hold`);
    if (checked === undefined) throw new Error('a checked fact is missing');
    return checked;
  }

  /**
   * Writes or refreshes a derived fact (auto-write kinds) once it holds against live state. A
   * person's or agent's own statement of the same key wins, a fact a person confirmed keeps
   * its value, and a forgotten fact stays forgotten. Returns whether it wrote.
   */
  async writeDerived(fact: DerivedFact): Promise<boolean> {
    const forgotten = await this.#deps.store.forgotten.findOne({
      _id: ownedId(fact.owner, 'preference', fact.key),
    });
    if (forgotten !== null) return false;
    let typed: TypedFact;
    try {
      typed = this.checkFact(fact.kind, fact, ownerPrincipal(fact.owner, fact.environment));
    } catch (err) {
      if (err instanceof TollgateError) return false;
      throw err;
    }
    const now = this.#deps.clock();
    const valueJson = JSON.stringify(typed.value);
    let wrote = true;
    const written = await this.#upsert(fact.owner, typed.key, (current) => {
      let confirmedBy: Actor | null = null;
      if (current !== undefined) {
        const stale = now.getTime() - (current.lastConfirmedAt?.getTime() ?? 0) >= REFRESH_MS;
        const same = JSON.stringify(current.value) === valueJson;
        const weaker =
          decayedScore(
            { score: current.score, at: current.updatedAt.getTime() },
            now.getTime(),
            this.#deps.settings.halfLifeMs,
          ) > fact.score;
        const confirmed = current.confirmedBy !== undefined;
        if (current.source !== 'derived' || (same && !stale) || (!same && (weaker || confirmed))) {
          wrote = false;
          return undefined;
        }
        confirmedBy = current.confirmedBy ?? null;
      }
      return {
        kind: fact.kind,
        valueJson,
        text: typed.text,
        status: 'active',
        source: 'derived',
        sessionId: '',
        createdBy: MEMORY_ACTOR,
        confirmedBy,
        updatedAt: now,
        lastConfirmedAt: now,
        score: fact.score,
      };
    });
    if (wrote) {
      await this.#project(written.owner, written.key);
      await this.#announce(written, written.version === 1 ? 'created' : 'updated', MEMORY_ACTOR);
    }
    return wrote;
  }

  /** Creates the fact a confirmed candidate proposed (already checked by the caller). */
  async fromCandidate(
    owner: Owner,
    fact: TypedFact & { kind: string },
    confirmer: Actor,
  ): Promise<PreferenceRecord> {
    const now = this.#deps.clock();
    const written = await this.#upsert(owner, fact.key, () => ({
      kind: fact.kind,
      valueJson: JSON.stringify(fact.value),
      text: fact.text,
      status: 'active',
      source: 'derived',
      sessionId: '',
      createdBy: MEMORY_ACTOR,
      confirmedBy: confirmer,
      updatedAt: now,
      lastConfirmedAt: now,
      score: 0,
    }));
    await this.#project(written.owner, written.key);
    await this.#announce(written, 'confirmed', confirmer);
    return written;
  }

  /** A staged fact still holds before it is confirmed: its value, or its words screened again. */
  #recheck(pref: PreferenceRecord, environment: string): void {
    if (isTypedKind(pref.kind)) {
      this.checkFact(pref.kind, pref, ownerPrincipal(pref.owner, environment));
      return;
    }
    const reason = findInjection(pref.text, {
      toolNames: this.#deps.live.toolNames(pref.owner.tenant),
    });
    if (reason !== undefined) {
      throw new TollgateError(
        'INVALID_ARGUMENT',
        `Preference ${pref.key} cannot be confirmed: its text reads as instructions to the model (${reason}); forget it.`,
      );
    }
  }

  /**
   * A free-text fact must not complete an instruction begun by another fact of the same owner
   * (or be completed by one): it is screened joined to each of them, both ways round.
   */
  async #screenAlongside(owner: Owner, fact: TypedFact): Promise<void> {
    const others = await this.#deps.store.preferences
      .find({ ...owner, kind: FREE_TEXT, key: { $ne: fact.key } })
      .limit(SCREENED_ALONGSIDE)
      .toArray();
    const toolNames = this.#deps.live.toolNames(owner.tenant);
    for (const other of others.map(readPreference)) {
      for (const joined of [`${other.text} ${fact.text}`, `${fact.text} ${other.text}`]) {
        const reason = findInjection(joined, { toolNames });
        if (reason === undefined) continue;
        throw new TollgateError(
          'INVALID_ARGUMENT',
          `Preference refused: text, read together with preference ${other.key}, reads as instructions to the model (${reason}); memory does not store instructions.`,
          {
            details: [
              {
                path: 'text',
                message: `reads as instructions together with ${other.key}`,
                expected: 'a plain statement of fact',
              },
            ],
          },
        );
      }
    }
  }

  async #visible(caller: Caller, id: string): Promise<PreferenceRecord> {
    new Problems().match('id', id, ITEM_ID, 'a preference id').throwIfAny('Invalid request');
    const doc = await this.#deps.store.preferences.findOne({ _id: id });
    const pref = doc === null ? undefined : readPreference(doc);
    if (pref === undefined || !canSee(caller, pref.owner)) {
      throw new TollgateError('NOT_FOUND', `Preference ${id} not found.`);
    }
    return pref;
  }

  /**
   * Inserts or replaces the (owner, key) document; `change` sees the current record and returns
   * the fields to write (undefined = leave it as it is). A new document is arbitrated by the
   * unique (owner, key) index, a change by a claim on its version (see `claimTransition`);
   * a lost race re-reads and decides again.
   */
  async #upsert(
    owner: Owner,
    key: string,
    change: (current: PreferenceRecord | undefined) => Record<string, unknown> | undefined,
  ): Promise<PreferenceRecord> {
    const col = this.#deps.store.preferences;
    for (let attempt = 0; attempt < 8; attempt++) {
      if (attempt > 0) await contentionPause(attempt);
      const doc = await col.findOne({ ...owner, key });
      const current = doc === null ? undefined : readPreference(doc);
      const fields = change(current);
      if (fields === undefined) {
        if (current === undefined) throw new Error('nothing to write for a new preference');
        return current;
      }
      if (current === undefined) {
        const created = {
          _id: randomUUID(),
          ...owner,
          key,
          createdAt: fields['updatedAt'],
          version: 1,
          ...fields,
        };
        try {
          await col.insertOne(created as StoredDocument);
          return readPreference(created as StoredDocument);
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
          continue;
        }
      }
      const claimed = await claimTransition(
        this.#deps.store.claims,
        current.id,
        current.version,
        this.#deps.clock(),
      );
      if (!claimed) continue;
      const updated = await col.findOneAndUpdate(
        { _id: current.id, version: current.version },
        { $set: { ...fields, version: current.version + 1 } },
        { returnDocument: 'after' },
      );
      if (updated !== null) return readPreference(updated);
    }
    throw new TollgateError(
      'VERSION_CONFLICT',
      `Preference ${key} is being written concurrently; retry.`,
    );
  }

  async #project(owner: Owner, key: string): Promise<void> {
    await this.#deps.projection?.preferenceChanged(owner, key);
  }

  async #announce(
    pref: PreferenceRecord,
    write: 'created' | 'updated' | 'proposed' | 'confirmed' | 'deleted',
    by: Actor,
  ): Promise<void> {
    await this.#deps.announcer.announce({
      owner: pref.owner,
      kind: 'preference',
      id: pref.id,
      version: pref.version,
      write,
      sessionId: pref.sessionId,
      writtenBy: by,
    });
  }
}
