/**
 * Session snapshots (short-term memory): one per (owner, session id), rewritten after every
 * step with an optimistic version so an agent that crashed resumes from its last step.
 * Secret-looking values are replaced by `[redacted]` rather than refusing the step; a
 * snapshot expires after an idle time (expired = not found; the sweeper deletes it). Ending a
 * session records its outcome and is final: an ended session takes no more snapshots.
 */
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import type { Announcer } from '../announce.js';
import { actorOf } from '../access/review.js';
import { redactSecrets } from '@tollgate/core';
import { claimTransition } from '../store/claims.js';
import { isDuplicateKey } from '@tollgate/kit';
import { ownedId } from '../store/collections.js';
import type { MemoryStore, StoredDocument } from '../store/collections.js';
import { StoredDoc } from '../store/stored-doc.js';
import type { JsonObject, Owner } from '../types.js';
import { Problems, preview } from '../requests/problems.js';
import { SESSION_ID } from '../requests/names.js';

/** How a session ended, as its agent reports it. */
export type SessionOutcome = 'succeeded' | 'failed' | 'abandoned';
export const SESSION_OUTCOMES: readonly SessionOutcome[] = ['succeeded', 'failed', 'abandoned'];

export interface SessionSnapshot {
  owner: Owner;
  sessionId: string;
  version: number;
  state: JsonObject;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  /** Set once the session ended (snapshots stored before ending was added have neither). */
  ended: { outcome: SessionOutcome; at: Date } | undefined;
}

export interface SessionDeps {
  store: MemoryStore;
  announcer: Announcer;
  clock: () => Date;
  settings: { sessionIdleMs: number; maxSessionBytes: number };
}

const CAS_ATTEMPTS = 8;

export class SessionBook {
  readonly #deps: SessionDeps;

  constructor(deps: SessionDeps) {
    this.#deps = deps;
  }

  /** The latest snapshot; NOT_FOUND when there is none or it expired. */
  async get(principal: Principal, sessionId: string): Promise<SessionSnapshot> {
    checkSessionId(sessionId);
    const owner = ownerOf(principal);
    const doc = await this.#deps.store.sessions.findOne({ _id: sessionKey(owner, sessionId) });
    const now = this.#deps.clock();
    if (doc === null || (doc['expiresAt'] as Date) <= now) throw notFound(sessionId);
    return readSession(doc);
  }

  /** The latest snapshot with its idle expiry restarted. */
  async resume(principal: Principal, sessionId: string): Promise<SessionSnapshot> {
    checkSessionId(sessionId);
    const owner = ownerOf(principal);
    const now = this.#deps.clock();
    const doc = await this.#deps.store.sessions.findOneAndUpdate(
      { _id: sessionKey(owner, sessionId), expiresAt: { $gt: now } },
      { $set: { expiresAt: new Date(now.getTime() + this.#deps.settings.sessionIdleMs) } },
      { returnDocument: 'after' },
    );
    if (doc === null) throw notFound(sessionId);
    return readSession(doc);
  }

  /**
   * Writes a snapshot. `expectedVersion` 0 = must not exist; N = the stored version must be N;
   * undefined = whatever is stored. Returns the stored snapshot and the redacted pointers.
   */
  async put(
    principal: Principal,
    sessionId: string,
    state: JsonObject,
    expectedVersion: number | undefined,
  ): Promise<{ session: SessionSnapshot; redactedPaths: string[] }> {
    const problems = new Problems();
    problems.match('session_id', sessionId, SESSION_ID, '1-128 of A-Z a-z 0-9 . _ : -');
    const { value: redacted, paths } = redactSecrets(state);
    const stateJson = JSON.stringify(redacted);
    const bytes = Buffer.byteLength(stateJson, 'utf8');
    if (bytes > this.#deps.settings.maxSessionBytes) {
      problems.add(
        'state',
        'state is too large',
        `at most ${this.#deps.settings.maxSessionBytes} bytes of JSON`,
        `${bytes} bytes`,
      );
    }
    problems.throwIfAny('Cannot store the session');
    const owner = ownerOf(principal);
    const id = sessionKey(owner, sessionId);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const now = this.#deps.clock();
      const current = await this.#current(id, now);
      if (current !== null && current['endedAt'] != null) throw endedRefusal(readSession(current));
      const stored = current?.['version'] as number | undefined;
      if (expectedVersion !== undefined && expectedVersion !== (stored ?? 0)) {
        throw conflict(sessionId, expectedVersion, stored ?? 0);
      }
      const expiresAt = new Date(now.getTime() + this.#deps.settings.sessionIdleMs);
      const written =
        stored === undefined
          ? await this.#insert({
              _id: id,
              ...owner,
              sessionId,
              version: 1,
              stateJson,
              createdAt: now,
              updatedAt: now,
              expiresAt,
            })
          : !(await claimTransition(this.#deps.store.claims, id, stored, now))
            ? null
            : await this.#deps.store.sessions.findOneAndUpdate(
                { _id: id, version: stored },
                { $set: { version: stored + 1, stateJson, updatedAt: now, expiresAt } },
                { returnDocument: 'after' },
              );
      if (written === null) continue;
      const session = readSession(written);
      await this.#deps.announcer.announce({
        owner,
        kind: 'session',
        id: sessionId,
        version: session.version,
        write: session.version === 1 ? 'created' : 'updated',
        sessionId,
        writtenBy: actorOf(principal),
      });
      return { session, redactedPaths: paths };
    }
    throw new TollgateError(
      'VERSION_CONFLICT',
      `Session ${preview(sessionId)} is being written concurrently; retry.`,
    );
  }

  /**
   * Ends a session with an outcome, as one more version (arbitrated like a put, so an end and a
   * put racing from one version cannot both win). Ending an ended session again with the same
   * outcome returns it unchanged (`ended: false`) — `expectedVersion` may then name the version
   * it ended from or the ended one; another outcome is VERSION_CONFLICT.
   */
  async end(
    principal: Principal,
    sessionId: string,
    outcome: SessionOutcome | undefined,
    expectedVersion: number | undefined,
  ): Promise<{ session: SessionSnapshot; ended: boolean }> {
    const problems = new Problems();
    problems.match('session_id', sessionId, SESSION_ID, '1-128 of A-Z a-z 0-9 . _ : -');
    if (outcome === undefined) {
      problems.add(
        'outcome',
        'outcome is required',
        'SUCCEEDED, FAILED or ABANDONED',
        'UNSPECIFIED',
      );
    }
    if (expectedVersion === 0) {
      problems.add(
        'expected_version',
        'expected_version 0 means "must not exist"; only a stored session can end',
        'the stored version, or unset',
        '0',
      );
    }
    problems.throwIfAny('Cannot end the session');
    const owner = ownerOf(principal);
    const id = sessionKey(owner, sessionId);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const now = this.#deps.clock();
      const current = await this.#current(id, now);
      if (current === null) throw notFound(sessionId);
      const stored = current['version'] as number;
      if (current['endedAt'] != null) {
        const session = readSession(current);
        if (session.ended?.outcome !== outcome) throw outcomeConflict(session, outcome!);
        const repeat =
          expectedVersion === undefined || [stored, stored - 1].includes(expectedVersion);
        if (!repeat) throw conflict(sessionId, expectedVersion, stored);
        return { session, ended: false };
      }
      if (expectedVersion !== undefined && expectedVersion !== stored) {
        throw conflict(sessionId, expectedVersion, stored);
      }
      if (!(await claimTransition(this.#deps.store.claims, id, stored, now))) continue;
      const written = await this.#deps.store.sessions.findOneAndUpdate(
        { _id: id, version: stored },
        {
          $set: {
            version: stored + 1,
            outcome,
            endedAt: now,
            updatedAt: now,
            expiresAt: new Date(now.getTime() + this.#deps.settings.sessionIdleMs),
          },
        },
        { returnDocument: 'after' },
      );
      if (written === null) continue;
      const session = readSession(written);
      await this.#deps.announcer.announce({
        owner,
        kind: 'session',
        id: sessionId,
        version: session.version,
        write: 'updated',
        sessionId,
        writtenBy: actorOf(principal),
      });
      return { session, ended: true };
    }
    throw new TollgateError(
      'VERSION_CONFLICT',
      `Session ${preview(sessionId)} is being written concurrently; retry.`,
    );
  }

  /** Deletes expired snapshots; returns how many. */
  async sweep(): Promise<number> {
    const now = this.#deps.clock();
    // Claims of settled transitions are never consulted again once their version has moved on.
    await this.#deps.store.claims.deleteMany({ at: { $lt: new Date(now.getTime() - 3_600_000) } });
    const result = await this.#deps.store.sessions.deleteMany({
      expiresAt: { $lte: now },
    });
    return result.deletedCount;
  }

  /** The live document, deleting it first when it expired. */
  async #current(id: string, now: Date): Promise<StoredDocument | null> {
    const doc = await this.#deps.store.sessions.findOne({ _id: id });
    if (doc === null) return null;
    if ((doc['expiresAt'] as Date) > now) return doc;
    await this.#deps.store.sessions.deleteOne({ _id: id, version: doc['version'] });
    return null;
  }

  async #insert(doc: StoredDocument): Promise<StoredDocument | null> {
    try {
      await this.#deps.store.sessions.insertOne(doc);
      return doc;
    } catch (err) {
      if (isDuplicateKey(err)) return null;
      throw err;
    }
  }
}

function ownerOf(principal: Principal): Owner {
  return { tenant: principal.tenant, agent: principal.agent, user: principal.user ?? '' };
}

function sessionKey(owner: Owner, sessionId: string): string {
  return ownedId(owner, 'session', sessionId);
}

function checkSessionId(sessionId: string): void {
  new Problems()
    .match('session_id', sessionId, SESSION_ID, '1-128 of A-Z a-z 0-9 . _ : -')
    .throwIfAny('Invalid session id');
}

function notFound(sessionId: string): TollgateError {
  return new TollgateError('NOT_FOUND', `Session ${preview(sessionId)} not found (or expired).`);
}

function conflict(sessionId: string, expected: number, stored: number): TollgateError {
  return new TollgateError(
    'VERSION_CONFLICT',
    stored === 0
      ? `Session ${preview(sessionId)} does not exist (or expired); expected_version ${expected} cannot match.`
      : `Session ${preview(sessionId)} is at version ${stored}, not ${expected}; resume from the stored snapshot.`,
    {
      details: [
        {
          path: 'expected_version',
          message: 'stale version',
          expected: String(stored),
          found: String(expected),
        },
      ],
    },
  );
}

function endedRefusal(session: SessionSnapshot): TollgateError {
  const outcome = session.ended?.outcome ?? 'ended';
  return new TollgateError(
    'VERSION_CONFLICT',
    `Session ${preview(session.sessionId)} ended (${outcome}) at ${session.ended?.at.toISOString()} and takes no more snapshots; start a new session.`,
    {
      details: [
        {
          path: 'session_id',
          message: 'the session has ended',
          expected: 'an open session',
          found: `ended (${outcome})`,
        },
      ],
    },
  );
}

function outcomeConflict(session: SessionSnapshot, requested: SessionOutcome): TollgateError {
  const outcome = session.ended?.outcome ?? '';
  return new TollgateError(
    'VERSION_CONFLICT',
    `Session ${preview(session.sessionId)} already ended as ${outcome}; it cannot end again as ${requested}.`,
    {
      details: [
        {
          path: 'outcome',
          message: 'the session already ended with another outcome',
          expected: outcome.toUpperCase(),
          found: requested.toUpperCase(),
        },
      ],
    },
  );
}

function readSession(doc: StoredDocument): SessionSnapshot {
  const d = new StoredDoc('memory_sessions', doc);
  const version = d.number('version');
  if (!Number.isInteger(version) || version < 1) d.fail('version is not a positive integer');
  const endedAt = d.optionalDate('endedAt');
  return {
    owner: d.owner(),
    sessionId: d.string('sessionId'),
    version,
    state: d.jsonObject('stateJson'),
    createdAt: d.date('createdAt'),
    updatedAt: d.date('updatedAt'),
    expiresAt: d.date('expiresAt'),
    ended:
      endedAt === undefined
        ? undefined
        : { outcome: d.oneOf('outcome', SESSION_OUTCOMES), at: endedAt },
  };
}
