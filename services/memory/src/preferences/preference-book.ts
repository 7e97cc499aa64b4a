/**
 * Preference memory (long-term, low risk): facts about a user or agent, one per (owner, key).
 * Written explicitly (a person's word takes effect; an agent's takes effect only for kinds
 * the gate policy auto-writes, otherwise it is staged for a person) or derived from completed
 * calls. Every write is screened; facts can be listed, corrected, confirmed and forgotten.
 */
import { randomUUID } from 'node:crypto';
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import type { Announcer } from '../announce.js';
import { decayedScore } from '../learning/decay.js';
import type { ProjectionHook } from '../projection/hook.js';
import { actorOf, assertMayReview, canSee } from '../access/review.js';
import { listScope, useScope, writeOwner } from '../access/scope.js';
import { claimTransition, contentionPause, isDuplicateKey } from '../store/claims.js';
import { findPage } from '../store/paging.js';
import { ownedId } from '../store/collections.js';
import type { MemoryStore, StoredDocument } from '../store/collections.js';
import { readPreference } from './preference-doc.js';
import { MEMORY_ACTOR } from '../types.js';
import type { Actor, JsonValue, Owner, PreferenceRecord, PreferenceStatus } from '../types.js';
import { ITEM_ID, KIND, PREFERENCE_KEY, SESSION_ID } from '../requests/names.js';
import { Problems, TOOLS_EXPECTED } from '../requests/problems.js';

export interface PreferenceDeps {
  store: MemoryStore;
  announcer: Announcer;
  clock: () => Date;
  settings: { autoKinds: string[]; halfLifeMs: number };
  /** Told after every write, before it is announced (see projector.ts). */
  projection?: Pick<ProjectionHook, 'preferenceChanged'>;
}

export interface PreferenceInput {
  key: string;
  kind: string;
  value: JsonValue | undefined;
  text: string;
  user: string;
  sessionId: string;
}

/** A fact derived from usage, offered to the store by the learner. */
export interface DerivedFact {
  owner: Owner;
  key: string;
  kind: string;
  value: JsonValue;
  text: string;
  score: number;
}

/** Derived facts are refreshed at most this often when nothing about them changed. */
const REFRESH_MS = 24 * 3600_000;
const MAX_VALUE_BYTES = 8 * 1024;

export class PreferenceBook {
  readonly #deps: PreferenceDeps;

  constructor(deps: PreferenceDeps) {
    this.#deps = deps;
  }

  async list(
    principal: Principal,
    request: {
      user: string;
      status: PreferenceStatus | undefined;
      agent: string;
      pageSize: number;
      pageToken: string;
    },
  ): Promise<{ preferences: PreferenceRecord[]; nextPageToken: string }> {
    const filter = {
      ...listScope(principal, request),
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
  async put(principal: Principal, input: PreferenceInput): Promise<PreferenceRecord> {
    const kind = input.kind === '' ? 'free_text' : input.kind;
    const problems = new Problems()
      .match('key', input.key, PREFERENCE_KEY, '[a-z0-9][a-z0-9_.:-]{0,127}')
      .match('kind', kind, KIND, '[a-z][a-z0-9_]{1,63}')
      .text('text', input.text, { max: 500, required: true });
    if (input.sessionId !== '') {
      problems.match('session_id', input.sessionId, SESSION_ID, '1-128 of A-Z a-z 0-9 . _ : -');
    }
    if (input.value === undefined) problems.add('value', 'value is required', 'a JSON value');
    else if (Buffer.byteLength(JSON.stringify(input.value)) > MAX_VALUE_BYTES) {
      problems.add('value', 'value is too large', `at most ${MAX_VALUE_BYTES} bytes of JSON`);
    }
    problems
      .screen('key', input.key, TOOLS_EXPECTED)
      .screen('text', input.text)
      .screen('value', input.value, TOOLS_EXPECTED);
    problems.throwIfAny('Preference refused');
    const owner = writeOwner(principal, input.user);
    const writer = actorOf(principal);
    const personalByPerson = writer.user !== '' && owner.user === writer.user;
    const status: PreferenceStatus =
      this.#deps.settings.autoKinds.includes(kind) || personalByPerson ? 'active' : 'proposed';
    const now = this.#deps.clock();
    const fields = {
      kind,
      valueJson: JSON.stringify(input.value),
      text: input.text.trim(),
      status,
      source: writer.user !== '' ? 'stated' : 'agent',
      sessionId: input.sessionId,
      createdBy: writer,
      confirmedBy: null,
      updatedAt: now,
      lastConfirmedAt: status === 'active' ? now : null,
      score: 0,
    };
    const written = await this.#upsert(owner, input.key, (current) => {
      if (current?.status === 'active' && status === 'proposed') {
        throw new TollgateError(
          'POLICY_DENIED',
          `Preference ${input.key} is in effect; an agent cannot change it without a person. Forget it first, or have a person state the change.`,
        );
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

  /** A person confirms a staged fact, or re-confirms one in effect. */
  async confirm(principal: Principal, id: string): Promise<PreferenceRecord> {
    const current = await this.#visible(principal, id);
    const reviewer = actorOf(principal);
    if (current.status === 'proposed') assertMayReview(reviewer, current.createdBy, current.owner);
    else if (reviewer.user === '') {
      throw new TollgateError(
        'POLICY_DENIED',
        'A person must confirm preferences: the caller has no user claim.',
      );
    }
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
  async forget(principal: Principal, id: string): Promise<void> {
    const current = await this.#visible(principal, id);
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
    if (result.deletedCount === 1) await this.#announce(current, 'deleted', actorOf(principal));
  }

  /**
   * Writes or refreshes a derived fact (auto-write kinds). A person's or agent's own statement
   * of the same key wins, and a forgotten fact stays forgotten. Returns whether it wrote.
   */
  async writeDerived(fact: DerivedFact): Promise<boolean> {
    const forgotten = await this.#deps.store.forgotten.findOne({
      _id: ownedId(fact.owner, 'preference', fact.key),
    });
    if (forgotten !== null) return false;
    const now = this.#deps.clock();
    const valueJson = JSON.stringify(fact.value);
    let wrote = true;
    const written = await this.#upsert(fact.owner, fact.key, (current) => {
      if (current !== undefined) {
        const stale = now.getTime() - (current.lastConfirmedAt?.getTime() ?? 0) >= REFRESH_MS;
        const same = JSON.stringify(current.value) === valueJson;
        const weaker =
          decayedScore(
            { score: current.score, at: current.updatedAt.getTime() },
            now.getTime(),
            this.#deps.settings.halfLifeMs,
          ) > fact.score;
        if (current.source !== 'derived' || (same && !stale) || (!same && weaker)) {
          wrote = false;
          return undefined;
        }
      }
      return {
        kind: fact.kind,
        valueJson,
        text: fact.text,
        status: 'active',
        source: 'derived',
        sessionId: '',
        createdBy: MEMORY_ACTOR,
        confirmedBy: null,
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

  /** Creates the fact a confirmed candidate proposed. */
  async fromCandidate(
    owner: Owner,
    fact: Omit<DerivedFact, 'owner' | 'score'>,
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

  async #visible(principal: Principal, id: string): Promise<PreferenceRecord> {
    new Problems().match('id', id, ITEM_ID, 'a preference id').throwIfAny('Invalid request');
    const doc = await this.#deps.store.preferences.findOne({ _id: id });
    const pref = doc === null ? undefined : readPreference(doc);
    if (pref === undefined || !canSee(principal, pref.owner)) {
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
