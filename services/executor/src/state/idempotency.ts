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
  /** Business keys: the permission set the result was shaped for (canonical hash). */
  shapedFor?: string;
  /** Business keys, when the write succeeded: the upstream answer, to shape for other callers. */
  upstream?: StoredUpstream;
}

/** An upstream answer kept with a business key's result (status and body only). */
export interface StoredUpstream {
  status: number;
  body: unknown;
}

/** The outcome of claiming a key: run the write, or answer what an earlier call stored. */
export type IdempotencyClaim =
  | { kind: 'run'; finish(result: CallResult, upstream?: StoredUpstream): Promise<void> }
  | { kind: 'replay'; result: CallResult; shapedFor?: string; upstream?: StoredUpstream };

/** What a claim is for. */
export interface IdempotentWrite {
  principal: Principal;
  /**
   * The caller's key, namespaced by principal; or a business key the resource's rule built
   * from the arguments (`business`), namespaced by tenant, environment and resource only, so
   * every caller of the resource shares it.
   */
  key: string;
  business?: { resource: string; shapedFor: string };
  /** Resource, tool and validated arguments; a different one under the same key conflicts. */
  request: unknown;
  callId: string;
  /** The claimant's deadline: its lease, and how long a duplicate waits for the result. */
  deadline: number;
}

const MAX_KEY_LENGTH = 256;

/**
 * A write that came without the caller's key, and whose resource builds none for it: the
 * answer names the key and how to send it.
 */
export function idempotencyKeyRequired(): TollgateError {
  return new TollgateError(
    'IDEMPOTENCY_KEY_REQUIRED',
    `This tool writes, so the call needs an idempotency key: send one (SDK: the call option idempotencyKey; a CallRequest: idempotency_key; 1 to ${MAX_KEY_LENGTH} characters, e.g. a fresh UUID) and reuse it when retrying this same write, so it runs at most once.`,
    {
      details: [
        {
          path: 'idempotency_key',
          message: 'required for writes; reuse it when retrying the same write',
          expected: `1 to ${MAX_KEY_LENGTH} characters`,
          found: 'none',
        },
      ],
    },
  );
}
/** How long after its deadline a claimant may still be storing its result. */
const LEASE_MARGIN_MS = 5_000;

/**
 * Idempotency of writes across executor instances, in `tollgate_idempotency` (TTL ≥ 24 h). The
 * caller's key is namespaced by principal (`<tenant>.<agent>.<sha256 of environment, user and
 * key>`), a business key by resource (`<tenant>._biz.<sha256 of environment, resource, key>`);
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
    if (write.key.length === 0) throw idempotencyKeyRequired();
    if (write.key.length > MAX_KEY_LENGTH) {
      throw new TollgateError(
        'INVALID_ARGUMENT',
        `The idempotency key is ${write.key.length} characters; it may have 1 to ${MAX_KEY_LENGTH}.`,
        {
          details: [
            {
              path: 'idempotency_key',
              message: 'too long',
              expected: `1 to ${MAX_KEY_LENGTH} characters`,
              found: `${write.key.length} characters`,
            },
          ],
        },
      );
    }
    const key =
      write.business === undefined
        ? storageKey(write.principal, write.key)
        : businessStorageKey(write.principal, write.business.resource, write.key);
    const argsHash = createHash('sha256').update(canonicalJson(write.request)).digest('hex');
    const running: IdempotencyRecord = {
      argsHash,
      state: 'running',
      callId: write.callId,
      leaseUntil: write.deadline + LEASE_MARGIN_MS,
      ...(write.business === undefined ? {} : { shapedFor: write.business.shapedFor }),
    };
    let pause = 20;
    for (let vanished = 0; ;) {
      try {
        const revision = await this.#kv.create(key, JSON.stringify(running));
        return {
          kind: 'run',
          finish: (result, upstream) => this.#finish(key, revision, running, result, upstream),
        };
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
          write.business === undefined
            ? 'This idempotency key was already used for a different write; use a new key for new arguments.'
            : 'The same business request (by the fields this resource says identify it) was already made today with other arguments; a person must decide which one stands.',
          {
            details: [
              write.business === undefined
                ? { path: 'idempotency_key', message: 'already used with different arguments' }
                : { path: '', message: 'already requested with different arguments' },
            ],
          },
        );
      }
      if (held.state === 'done' && held.result !== undefined) {
        return {
          kind: 'replay',
          result: fromBinary(CallResultSchema, Buffer.from(held.result, 'base64')),
          ...(held.shapedFor === undefined ? {} : { shapedFor: held.shapedFor }),
          ...(held.upstream === undefined ? {} : { upstream: held.upstream }),
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
    upstream?: StoredUpstream,
  ): Promise<void> {
    if (releasable(result)) {
      await this.#kv.delete(key, { previousSeq: revision });
      return;
    }
    const done: IdempotencyRecord = {
      ...running,
      state: 'done',
      result: Buffer.from(toBinary(CallResultSchema, result)).toString('base64'),
      ...(running.shapedFor !== undefined && upstream !== undefined ? { upstream } : {}),
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

/** Shared by every principal of the resource's tenant and environment. */
function businessStorageKey(principal: Principal, resource: string, key: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([principal.environment, resource, key]))
    .digest('hex');
  return `${principal.tenant}._biz.${digest}`;
}

function readRecord(bytes: Uint8Array): IdempotencyRecord | undefined {
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes)) as Partial<IdempotencyRecord>;
    if (typeof v.argsHash !== 'string' || (v.state !== 'running' && v.state !== 'done'))
      return undefined;
    if (typeof v.leaseUntil !== 'number' || typeof v.callId !== 'string') return undefined;
    if (v.result !== undefined && typeof v.result !== 'string') return undefined;
    if (v.shapedFor !== undefined && typeof v.shapedFor !== 'string') return undefined;
    return v as IdempotencyRecord;
  } catch {
    return undefined;
  }
}
