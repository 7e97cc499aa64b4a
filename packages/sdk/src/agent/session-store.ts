import type { JsonObject } from '@bufbuild/protobuf';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import { MemoryService } from '@tollgate/contracts/memory/v1';
import { toolCallError } from '../errors.js';
import { errorFromRpc } from '../wire-errors.js';

/** A stored session snapshot and its version (bumped on every save). */
export interface SessionRecord {
  snapshot: JsonObject;
  version: number;
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
}

/** Sessions in this process's memory (copies in and out, versioned like the memory service). */
export class InMemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, SessionRecord>();

  async load(sessionId: string): Promise<SessionRecord | undefined> {
    const record = this.#sessions.get(sessionId);
    return record && { snapshot: structuredClone(record.snapshot), version: record.version };
  }

  async save(sessionId: string, snapshot: JsonObject, expectedVersion: number): Promise<number> {
    const current = this.#sessions.get(sessionId)?.version ?? 0;
    if (current !== expectedVersion) throw conflict(sessionId, expectedVersion, current);
    const version = current + 1;
    this.#sessions.set(sessionId, { snapshot: structuredClone(snapshot), version });
    return version;
  }
}

/** How to reach the memory service: its gRPC address and the agent's principal token. */
export interface MemoryServiceTarget {
  address: string;
  token: string;
  /** Per-call deadline, ms (default 10 000). */
  deadlineMs?: number;
}

/** Session snapshots in the memory service (`GetSession` / `PutSession`). */
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
    return { snapshot: session.state ?? {}, version: session.version };
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

  close(): void {
    this.#client.close();
  }
}

function conflict(sessionId: string, expected: number, current: number) {
  return toolCallError({
    code: 'VERSION_CONFLICT',
    message: `session ${sessionId} is at version ${current}, not ${expected}: another run wrote it`,
  });
}
