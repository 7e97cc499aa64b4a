import { setTimeout as sleep } from 'node:timers/promises';

import { UpstreamError } from '@tollgate/core';

import { classifyFailure } from './failure.js';
import type { Failure } from './failure.js';

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 100;
export const MAX_BACKOFF_MS = 2000;

/** Limits for one logical upstream call, possibly made of several attempts. */
export interface AttemptPolicy {
  resource: string;
  /** Reads may be retried; anything that changes state gets exactly one attempt. */
  idempotent: boolean;
  /** Per-attempt timeout, ms. */
  timeoutMs: number;
  /** Absolute deadline, epoch ms. */
  deadline?: number;
  signal?: AbortSignal;
  maxAttempts?: number;
  backoffMs?: number;
}

/** Per-attempt transport options: the timeout left and the caller's cancellation. */
export interface AttemptOptions {
  requestTimeout: number;
  signal?: AbortSignal;
}

/**
 * Wraps an error thrown while the mutating request of a write was in flight, so the failure is
 * classified as a possible partial write rather than a harmless read failure.
 */
export class MutationFailed extends Error {
  constructor(readonly failure: unknown) {
    super('mutation failed');
    this.name = 'MutationFailed';
  }
}

/**
 * Runs `send` within the per-attempt timeout and the caller's deadline. Retryable failures of
 * idempotent calls are retried with exponential backoff and jitter while time remains; the
 * final failure becomes an `UpstreamError` with the attempts made.
 */
export async function withAttempts<T>(
  policy: AttemptPolicy,
  send: (options: AttemptOptions) => Promise<T>,
): Promise<{ value: T; attempts: number }> {
  const maxAttempts = policy.idempotent
    ? Math.max(1, Math.min(policy.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, 10))
    : 1;
  let attempt = 0;
  for (;;) {
    attempt += 1;
    const remaining = timeLeft(policy);
    if (remaining <= 0 || isCancelled(policy)) {
      throw deadlineError(policy.resource, Math.max(attempt - 1, 0));
    }
    try {
      const requestTimeout = Math.max(1, Math.min(policy.timeoutMs, remaining));
      const value = await send({
        requestTimeout,
        ...(policy.signal === undefined ? {} : { signal: policy.signal }),
      });
      return { value, attempts: attempt };
    } catch (err) {
      const mutation = err instanceof MutationFailed;
      const failure = classifyFailure(
        mutation ? err.failure : err,
        policy.resource,
        mutation ? 'write' : 'read',
        isCancelled(policy),
      );
      if (!failure.retryable || attempt >= maxAttempts) throw upstreamError(failure, attempt);
      const delay = backoff(attempt, policy.backoffMs ?? DEFAULT_BACKOFF_MS);
      if (delay >= timeLeft(policy)) throw upstreamError(failure, attempt);
      try {
        await sleep(delay, undefined, policy.signal === undefined ? {} : { signal: policy.signal });
      } catch {
        throw deadlineError(policy.resource, attempt);
      }
    }
  }
}

function isCancelled(policy: AttemptPolicy): boolean {
  return policy.signal?.aborted === true;
}

function timeLeft(policy: AttemptPolicy): number {
  return policy.deadline === undefined ? Number.POSITIVE_INFINITY : policy.deadline - Date.now();
}

/** Exponential backoff with jitter: between half and all of base·2^(attempt-1), capped. */
function backoff(attempt: number, base: number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, base * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.5 + Math.random() * 0.5));
}

function upstreamError(failure: Failure, attempts: number): UpstreamError {
  return new UpstreamError(failure.code, failure.message, {
    attempts,
    ...(failure.status === undefined ? {} : { upstreamStatus: failure.status }),
    cause: new Error(failure.cause),
  });
}

function deadlineError(resource: string, attempts: number): UpstreamError {
  return new UpstreamError(
    'UPSTREAM_TIMEOUT',
    `The call's deadline passed before Elasticsearch answered for ${resource}.`,
    {
      attempts,
    },
  );
}
