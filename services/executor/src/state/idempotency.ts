import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { CallResultSchema, CallStatus } from '@tollgate/contracts/call/v1';
import type { CallResult } from '@tollgate/contracts/call/v1';
import { ErrorCategory, ErrorCode } from '@tollgate/contracts/common/v1';
import { TollgateError, canonicalJson } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import type { KV } from '@tollgate/kit';

/** One stored write outcome under an idempotency key. */
interface IdempotencyRecord {
  argsHash: string;
  state: 'running' | 'done';
  callId: string;
  /** While running: after this (epoch ms) the claimant is presumed gone. */
  leaseUntil: number;
  /** When done: the CallResult, protobuf binary in base64. */
  result?: string;
}

/** The outcome of claiming a key: run the write, or answer what an earlier call stored. */
export type IdempotencyClaim =
  | { kind: 'run'; finish(result: CallResult): Promise<void> }
  | { kind: 'replay'; result: CallResult };

/** What a claim is for. */
export interface IdempotentWrite {
  principal: Principal;
  key: string;
  /** Resource, tool and validated arguments; a different one under the same key conflicts. */
  request: unknown;
  callId: string;
  /** The claimant's deadline: its lease, and how long a duplicate waits for the result. */
  deadline: number;
}

const MAX_KEY_LENGTH = 256;
/** How long after its deadline a claimant may still be storing its result. */
const LEASE_MARGIN_MS = 5_000;

/**
 * Idempotency of writes across executor instances, in `tollgate_idempotency` (TTL ≥ 24 h). The
 * key is namespaced by principal (`<tenant>.<agent>.<sha256 of environment, user and key>`);
 * the first call claims it with `kv.create`; concurrent duplicates wait for its stored result;
 * a retry after completion gets that result back; the same key with other arguments is
 * `IDEMPOTENCY_CONFLICT`. A claimant that vanished mid-write leaves an unknown outcome, which is
 * reported as such rather than repeated.
 */
export class IdempotencyStore {
  readonly #kv: KV;
  readonly #clock: () => number;

  constructor(kv: KV, clock: () => number = Date.now) {
    this.#kv = kv;
    this.#clock = clock;
  }

  async claim(write: IdempotentWrite): Promise<IdempotencyClaim> {
    if (write.key.length === 0 || write.key.length > MAX_KEY_LENGTH) {
      throw new TollgateError(
        'INVALID_ARGUMENT',
        'Writes need an idempotency key of 1 to 256 characters.',
        {
          details: [
            {
              path: 'idempotency_key',
              message: 'required for writes; reuse it when retrying the same write',
              expected: `1 to ${MAX_KEY_LENGTH} characters`,
              found: write.key === '' ? 'none' : `${write.key.length} characters`,
            },
          ],
        },
      );
    }
    const key = storageKey(write.principal, write.key);
    const argsHash = createHash('sha256').update(canonicalJson(write.request)).digest('hex');
    const running: IdempotencyRecord = {
      argsHash,
      state: 'running',
      callId: write.callId,
      leaseUntil: write.deadline + LEASE_MARGIN_MS,
    };
    let pause = 20;
    for (let vanished = 0; ;) {
      try {
        const revision = await this.#kv.create(key, JSON.stringify(running));
        return { kind: 'run', finish: (result) => this.#finish(key, revision, running, result) };
      } catch {
        // Taken (or a transient failure): read what is there.
      }
      const entry = await this.#kv.get(key);
      if (entry === null || entry.operation !== 'PUT') {
        if (++vanished > 20)
          throw new TollgateError('INTERNAL', 'The idempotency key could not be claimed.');
        continue;
      }
      const held = readRecord(entry.value);
      if (held === undefined)
        throw new TollgateError('INTERNAL', 'An idempotency record is unreadable.');
      if (held.argsHash !== argsHash) {
        throw new TollgateError(
          'IDEMPOTENCY_CONFLICT',
          'This idempotency key was already used for a different write; use a new key for new arguments.',
          {
            details: [
              { path: 'idempotency_key', message: 'already used with different arguments' },
            ],
          },
        );
      }
      if (held.state === 'done' && held.result !== undefined) {
        return {
          kind: 'replay',
          result: fromBinary(CallResultSchema, Buffer.from(held.result, 'base64')),
        };
      }
      const now = this.#clock();
      if (held.leaseUntil < now) {
        throw new TollgateError(
          'WRITE_OUTCOME_UNKNOWN',
          'An earlier call with this idempotency key did not finish; its write may or may not have been applied. Check before writing again with a new key.',
        );
      }
      if (now >= write.deadline) {
        throw new TollgateError(
          'UPSTREAM_TIMEOUT',
          'A call with this idempotency key is still running; retry later with the same key to get its result.',
        );
      }
      await sleep(Math.min(pause, Math.max(1, write.deadline - now)));
      pause = Math.min(pause * 2, 250);
    }
  }

  /**
   * Stores the result for retries — unless the write certainly did not happen (the failure is
   * retryable or about the arguments), in which case the key is released for a retry.
   */
  async #finish(
    key: string,
    revision: number,
    running: IdempotencyRecord,
    result: CallResult,
  ): Promise<void> {
    if (releasable(result)) {
      await this.#kv.delete(key, { previousSeq: revision });
      return;
    }
    const done: IdempotencyRecord = {
      ...running,
      state: 'done',
      result: Buffer.from(toBinary(CallResultSchema, result)).toString('base64'),
    };
    await this.#kv.update(key, JSON.stringify(done), revision);
  }
}

function releasable(result: CallResult): boolean {
  if (result.status !== CallStatus.ERROR || result.error === undefined) return false;
  const { category, code } = result.error;
  return (
    category === ErrorCategory.RETRYABLE ||
    category === ErrorCategory.FIX_ARGUMENTS ||
    code === ErrorCode.CREDENTIAL_UNAVAILABLE ||
    code === ErrorCode.POLICY_DENIED
  );
}

function storageKey(principal: Principal, key: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([principal.environment, principal.user ?? '', key]))
    .digest('hex');
  return `${principal.tenant}.${principal.agent}.${digest}`;
}

function readRecord(bytes: Uint8Array): IdempotencyRecord | undefined {
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes)) as Partial<IdempotencyRecord>;
    if (typeof v.argsHash !== 'string' || (v.state !== 'running' && v.state !== 'done'))
      return undefined;
    if (typeof v.leaseUntil !== 'number' || typeof v.callId !== 'string') return undefined;
    if (v.result !== undefined && typeof v.result !== 'string') return undefined;
    return v as IdempotencyRecord;
  } catch {
    return undefined;
  }
}
