import { setTimeout as sleep } from 'node:timers/promises';

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 100;
export const MAX_BACKOFF_MS = 2000;
/** The most attempts a caller may ask for. */
export const MAX_ATTEMPTS = 10;

/** Limits of one logical upstream call, possibly made of several attempts. */
export interface AttemptLimits {
  /** Only idempotent calls are retried; anything that changes state gets exactly one attempt. */
  idempotent: boolean;
  /** The time one attempt may take, ms. */
  timeoutMs: number;
  /** Absolute deadline of the whole call, epoch ms. */
  deadline?: number;
  signal?: AbortSignal;
  maxAttempts?: number;
  backoffMs?: number;
}

/** What the caller sets for a whole call: its deadline, cancellation, attempts and backoff. */
export type CallerLimits = Omit<AttemptLimits, 'idempotent' | 'timeoutMs'>;

/** The caller's limits of a context (e.g. `ExecuteContext`), only those it sets. */
export function callerLimits(ctx: CallerLimits): CallerLimits {
  return {
    ...(ctx.deadline === undefined ? {} : { deadline: ctx.deadline }),
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    ...(ctx.maxAttempts === undefined ? {} : { maxAttempts: ctx.maxAttempts }),
    ...(ctx.backoffMs === undefined ? {} : { backoffMs: ctx.backoffMs }),
  };
}

/** One attempt: its number (from 1), the time it may take within the deadline, the cancellation. */
export interface Attempt {
  number: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** What a failed attempt comes to: the error to throw and whether another attempt may follow. */
export interface AttemptFailure {
  error: Error;
  retryable: boolean;
}

/** What a kind brings to the loop: the attempt itself, its failures, the passed deadline. */
export interface AttemptSteps<T> {
  send(attempt: Attempt): Promise<T>;
  /** Classifies what an attempt threw; `cancelled` says whether the caller's signal fired. */
  fail(err: unknown, attempt: number, cancelled: boolean): AttemptFailure | Promise<AttemptFailure>;
  /** The error when the deadline passed or the call was cancelled after `made` attempts. */
  expired(made: number): Error;
}

/**
 * Runs `send` within the per-attempt timeout and the caller's deadline. Retryable failures of
 * idempotent calls are retried with exponential backoff and jitter while time remains; a retry
 * that would end past the deadline is not started, and the last failure is thrown instead.
 */
export async function withAttempts<T>(
  limits: AttemptLimits,
  steps: AttemptSteps<T>,
): Promise<{ value: T; attempts: number }> {
  const maxAttempts = limits.idempotent
    ? Math.max(1, Math.min(limits.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, MAX_ATTEMPTS))
    : 1;
  for (let attempt = 1; ; attempt += 1) {
    const remaining = timeLeft(limits);
    if (remaining <= 0 || cancelled(limits)) throw steps.expired(attempt - 1);
    try {
      const value = await steps.send({
        number: attempt,
        timeoutMs: Math.max(1, Math.min(limits.timeoutMs, remaining)),
        ...(limits.signal === undefined ? {} : { signal: limits.signal }),
      });
      return { value, attempts: attempt };
    } catch (err) {
      const failure = await steps.fail(err, attempt, cancelled(limits));
      if (!failure.retryable || attempt >= maxAttempts) throw failure.error;
      const delay = backoff(attempt, limits.backoffMs ?? DEFAULT_BACKOFF_MS);
      if (delay >= timeLeft(limits)) throw failure.error;
      try {
        await sleep(delay, undefined, limits.signal === undefined ? {} : { signal: limits.signal });
      } catch {
        throw steps.expired(attempt);
      }
    }
  }
}

function cancelled(limits: AttemptLimits): boolean {
  return limits.signal?.aborted === true;
}

function timeLeft(limits: AttemptLimits): number {
  return limits.deadline === undefined ? Number.POSITIVE_INFINITY : limits.deadline - Date.now();
}

/** Exponential backoff with jitter: between half and all of base·2^(attempt-1), capped. */
function backoff(attempt: number, base: number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, base * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.5 + Math.random() * 0.5));
}
