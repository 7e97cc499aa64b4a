import { setTimeout as sleep } from 'node:timers/promises';

import { TollgateError, UpstreamError } from '@tollgate/core';
import type { ErrorCode } from '@tollgate/core';

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 100;
export const MAX_BACKOFF_MS = 2000;

/** A driver failure, classified by the kind: what the agent is told and whether to retry. */
export interface SqlFailure {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  /** The server's error code (SQLSTATE or errno), for the cause; never values or secrets. */
  cause: string;
}

/** Limits of one logical call, possibly several attempts. */
export interface AttemptPolicy {
  resource: string;
  /** Only reads are retried; a write gets exactly one attempt. */
  idempotent: boolean;
  timeoutMs: number;
  deadline?: number;
  signal?: AbortSignal;
  maxAttempts?: number;
  backoffMs?: number;
  classify(err: unknown, cancelled: boolean): SqlFailure;
}

/**
 * Runs `send` with the time one attempt may take (the resource timeout within the deadline);
 * retryable failures of reads are retried with exponential backoff and jitter while time
 * remains. The final failure is an `UpstreamError` carrying the attempts made.
 */
export async function withAttempts<T>(
  policy: AttemptPolicy,
  send: (timeoutMs: number) => Promise<T>,
): Promise<{ value: T; attempts: number }> {
  const maxAttempts = policy.idempotent
    ? Math.max(1, Math.min(policy.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, 10))
    : 1;
  for (let attempt = 1; ; attempt += 1) {
    const remaining =
      policy.deadline === undefined ? Number.POSITIVE_INFINITY : policy.deadline - Date.now();
    if (remaining <= 0 || aborted(policy.signal)) {
      throw new UpstreamError(
        'UPSTREAM_TIMEOUT',
        `The call's deadline passed before the database answered for ${policy.resource}.`,
        { attempts: attempt - 1 },
      );
    }
    try {
      return {
        value: await send(Math.max(1, Math.min(policy.timeoutMs, remaining))),
        attempts: attempt,
      };
    } catch (err) {
      // Outcomes the kind already decided (not found, refused) pass through unchanged.
      if (err instanceof TollgateError) throw err;
      const failure = policy.classify(err, aborted(policy.signal));
      const delay = Math.round(
        Math.min(MAX_BACKOFF_MS, (policy.backoffMs ?? DEFAULT_BACKOFF_MS) * 2 ** (attempt - 1)) *
          (0.5 + Math.random() * 0.5),
      );
      const left =
        policy.deadline === undefined ? Number.POSITIVE_INFINITY : policy.deadline - Date.now();
      if (!failure.retryable || attempt >= maxAttempts || delay >= left) {
        throw new UpstreamError(failure.code, failure.message, {
          attempts: attempt,
          cause: new Error(failure.cause),
        });
      }
      await sleep(delay);
    }
  }
}

function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
