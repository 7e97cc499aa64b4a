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

/** Slots taken from a window at once: at least one when allowed, never more than are left. */
export interface WindowLease extends WindowDecision {
  /** Slots taken (0 when refused). */
  granted: number;
}

/**
 * Fixed-window rate limiting, pure: given the stored state (or null), the time and the limit,
 * takes up to `wanted` slots of the current window — as many as are left, at least one — or
 * refuses when none is. A refused call leaves the state unchanged.
 */
export function takeWindowSlots(
  state: WindowState | null,
  now: number,
  limit: RateLimit,
  wanted: number,
): WindowLease {
  const windowMs = limit.perSeconds * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const used = state === null || state.windowStart !== windowStart ? 0 : state.count;
  const granted = Math.min(Math.max(1, Math.floor(wanted)), limit.requests - used);
  if (granted <= 0) {
    return {
      allowed: false,
      granted: 0,
      retryAfterMs: windowStart + windowMs - now,
      state: state ?? { windowStart, count: used },
    };
  }
  return { allowed: true, granted, retryAfterMs: 0, state: { windowStart, count: used + granted } };
}

/** One slot of the current window (`takeWindowSlots` for a single call). */
export function nextWindowState(
  state: WindowState | null,
  now: number,
  limit: RateLimit,
): WindowDecision {
  const { allowed, retryAfterMs, state: next } = takeWindowSlots(state, now, limit, 1);
  return { allowed, retryAfterMs, state: next };
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
