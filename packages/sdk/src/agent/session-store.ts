import type { JsonObject } from '@bufbuild/protobuf';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import { MemoryService, SessionOutcome, SessionStatus } from '@tollgate/contracts/memory/v1';
import { toolCallError } from '../errors.js';
import { errorFromRpc } from '../wire-errors.js';

/** A stored session snapshot and its version (bumped on every save). */
export interface SessionRecord {
  snapshot: JsonObject;
  version: number;
  /** Set when the session has ended: it takes no more snapshots. */
  ended?: { outcome: SessionEndOutcome };
}

/** How a session ended: the task done, a failed run, or given up. */
export type SessionEndOutcome = 'succeeded' | 'failed' | 'abandoned';

/** What ending a session answered. */
export interface SessionEnd {
  /** The ended session's version. */
  version: number;
  /** The skill candidate the session proposed (memory service only), or ''. */
  skillCandidateId: string;
}

/**
 * Where the agent loop keeps a conversation between steps and runs. The memory service
 * implements it over gRPC (`MemoryServiceSessionStore`); `InMemorySessionStore` is for tests
 * and single-process use.
 */
export interface SessionStore {
  /** The latest snapshot, or undefined when the session has none. */
  load(sessionId: string): Promise<SessionRecord | undefined>;
  /**
   * Stores a snapshot if the stored version still equals `expectedVersion` (0: none stored
   * yet) and returns the new version; otherwise throws a FixArgumentsError VERSION_CONFLICT.
   */
  save(sessionId: string, snapshot: JsonObject, expectedVersion: number): Promise<number>;
  /**
   * Ends the session with an outcome if the stored version still equals `expectedVersion`; it
   * takes no more snapshots afterwards. Ending again with the same outcome returns the same
   * answer; another outcome is a FixArgumentsError VERSION_CONFLICT. Optional: a store without
   * it keeps sessions open.
   */
  end?(sessionId: string, outcome: SessionEndOutcome, expectedVersion: number): Promise<SessionEnd>;
}

/** Sessions in this process's memory (copies in and out, versioned like the memory service). */
export class InMemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, SessionRecord>();

  async load(sessionId: string): Promise<SessionRecord | undefined> {
    const record = this.#sessions.get(sessionId);
    return record && structuredClone(record);
  }

  async save(sessionId: string, snapshot: JsonObject, expectedVersion: number): Promise<number> {
    const record = this.#sessions.get(sessionId);
    if (record?.ended) throw endedError(sessionId, record.ended.outcome);
    const current = record?.version ?? 0;
    if (current !== expectedVersion) throw conflict(sessionId, expectedVersion, current);
    const version = current + 1;
    this.#sessions.set(sessionId, { snapshot: structuredClone(snapshot), version });
    return version;
  }

  async end(
    sessionId: string,
    outcome: SessionEndOutcome,
    expectedVersion: number,
  ): Promise<SessionEnd> {
    const record = this.#sessions.get(sessionId);
    if (record === undefined) {
      throw toolCallError({ code: 'NOT_FOUND', message: `session ${sessionId} not found` });
    }
    if (record.ended) {
      if (record.ended.outcome !== outcome) {
        throw toolCallError({
          code: 'VERSION_CONFLICT',
          message: `session ${sessionId} already ended as ${record.ended.outcome}`,
        });
      }
      if (![record.version, record.version - 1].includes(expectedVersion)) {
        throw conflict(sessionId, expectedVersion, record.version);
      }
      return { version: record.version, skillCandidateId: '' };
    }
    if (record.version !== expectedVersion) {
      throw conflict(sessionId, expectedVersion, record.version);
    }
    const version = record.version + 1;
    this.#sessions.set(sessionId, { ...record, version, ended: { outcome } });
    return { version, skillCandidateId: '' };
  }
}

/** How to reach the memory service: its gRPC address and the agent's principal token. */
export interface MemoryServiceTarget {
  address: string;
  token: string;
  /** Per-call deadline, ms (default 10 000). */
  deadlineMs?: number;
}

/** Session snapshots in the memory service (`GetSession` / `PutSession` / `EndSession`). */
export class MemoryServiceSessionStore implements SessionStore {
  readonly #client: RpcClient<typeof MemoryService>;

  constructor(target: MemoryServiceTarget) {
    this.#client = createClient(MemoryService, target.address, {
      metadata: { authorization: `Bearer ${target.token}` },
      defaultDeadlineMs: target.deadlineMs ?? 10_000,
    });
  }

  async load(sessionId: string): Promise<SessionRecord | undefined> {
    let response;
    try {
      response = await this.#client.getSession({ sessionId });
    } catch (err) {
      const error = errorFromRpc(err, `memory GetSession ${sessionId}`);
      if (error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
    const session = response.session;
    if (session === undefined) return undefined;
    const outcome = OUTCOMES.find(([, proto]) => proto === session.outcome)?.[0];
    return {
      snapshot: session.state ?? {},
      version: session.version,
      ...(session.status === SessionStatus.ENDED
        ? { ended: { outcome: outcome ?? 'failed' } }
        : {}),
    };
  }

  async save(sessionId: string, snapshot: JsonObject, expectedVersion: number): Promise<number> {
    let response;
    try {
      response = await this.#client.putSession({ sessionId, state: snapshot, expectedVersion });
    } catch (err) {
      throw errorFromRpc(err, `memory PutSession ${sessionId}`);
    }
    if (response.session === undefined) {
      throw toolCallError({
        code: 'INTERNAL',
        message: `memory PutSession ${sessionId} returned no session`,
      });
    }
    return response.session.version;
  }

  async end(
    sessionId: string,
    outcome: SessionEndOutcome,
    expectedVersion: number,
  ): Promise<SessionEnd> {
    let response;
    try {
      response = await this.#client.endSession({
        sessionId,
        outcome: OUTCOMES.find(([name]) => name === outcome)?.[1] ?? SessionOutcome.UNSPECIFIED,
        expectedVersion,
      });
    } catch (err) {
      throw errorFromRpc(err, `memory EndSession ${sessionId}`);
    }
    if (response.session === undefined) {
      throw toolCallError({
        code: 'INTERNAL',
        message: `memory EndSession ${sessionId} returned no session`,
      });
    }
    return { version: response.session.version, skillCandidateId: response.skillCandidateId };
  }

  close(): void {
    this.#client.close();
  }
}

const OUTCOMES: ReadonlyArray<readonly [SessionEndOutcome, SessionOutcome]> = [
  ['succeeded', SessionOutcome.SUCCEEDED],
  ['failed', SessionOutcome.FAILED],
  ['abandoned', SessionOutcome.ABANDONED],
];

function endedError(sessionId: string, outcome: SessionEndOutcome) {
  return toolCallError({
    code: 'VERSION_CONFLICT',
    message: `session ${sessionId} ended (${outcome}) and takes no more snapshots; start a new session`,
  });
}

function conflict(sessionId: string, expected: number, current: number) {
  return toolCallError({
    code: 'VERSION_CONFLICT',
    message: `session ${sessionId} is at version ${current}, not ${expected}: another run wrote it`,
  });
}
