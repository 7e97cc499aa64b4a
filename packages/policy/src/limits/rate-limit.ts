import type { Operation } from '@tollgate/core';

/** A limit of `requests` per fixed window of `perSeconds`. */
export interface RateLimit {
  requests: number;
  perSeconds: number;
}

/** The shared counter of one limit; windows are aligned to the epoch so every instance agrees. */
export interface WindowState {
  /** Epoch ms at which the current window opened. */
  windowStart: number;
  /** Calls admitted in it. */
  count: number;
}

/** Whether a call is admitted, and the counter to store (compare-and-swap) if it is. */
export interface WindowDecision {
  allowed: boolean;
  /** 0 when allowed; otherwise ms until the window resets. */
  retryAfterMs: number;
  state: WindowState;
}

/**
 * Fixed-window rate limiting, pure: given the stored state (or null), the time and the limit,
 * says whether one more call fits. A refused call leaves the state unchanged.
 */
export function nextWindowState(
  state: WindowState | null,
  now: number,
  limit: RateLimit,
): WindowDecision {
  const windowMs = limit.perSeconds * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  if (state === null || state.windowStart !== windowStart) {
    return { allowed: true, retryAfterMs: 0, state: { windowStart, count: 1 } };
  }
  if (state.count < limit.requests) {
    return { allowed: true, retryAfterMs: 0, state: { windowStart, count: state.count + 1 } };
  }
  return { allowed: false, retryAfterMs: windowStart + windowMs - now, state };
}

/** NATS-KV-safe counter key: `ratelimit.<tenant>.<agent>.<resource>_<operation>.<policy id>`. */
export function rateLimitCounterKey(
  tenant: string,
  agent: string,
  resource: string,
  operation: Operation,
  policyId: string,
): string {
  const token = (s: string) => s.replace(/[^-_a-zA-Z0-9/=]/g, '_');
  return [
    'ratelimit',
    token(tenant),
    token(agent),
    token(`${resource}_${operation}`),
    token(policyId),
  ].join('.');
}
