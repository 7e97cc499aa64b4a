import { setTimeout as sleep } from 'node:timers/promises';
import { TollgateError } from '@tollgate/core';
import type { KV } from '@tollgate/kit';
import { takeWindowSlots } from '@tollgate/policy';
import type { ApplicableRateLimit, WindowState } from '@tollgate/policy';

/** Compare-and-set attempts per counter before giving up under contention. */
const MAX_ATTEMPTS = 25;
/** A lease is at most this share of a window's limit … */
export const LEASE_SHARE = 16;
/** … and at most this many slots. */
export const MAX_LEASE = 64;
/** Leases kept at most; beyond it they are dropped (their slots go unused, never doubled). */
const MAX_LEASES = 10_000;

/** Slots one counter write reserves for this instance: 1 for limits under 32 per window. */
export function leaseSize(requests: number): number {
  return Math.max(1, Math.min(MAX_LEASE, Math.floor(requests / LEASE_SHARE)));
}

/** Slots this instance took from a shared counter and has not used yet, for one window. */
interface Lease {
  windowStart: number;
  left: number;
}

/**
 * Rate limits declared in policies, enforced across every executor instance: one counter per
 * principal × tool × granting policy in the `tollgate_rate_limits` KV bucket, advanced with
 * compare-and-set (`kv.create` for a new counter, `kv.update` at the read revision), so two
 * instances can never both take the last slot of a window.
 *
 * Each write reserves a lease of `leaseSize(limit)` slots (at most 1/16 of the limit, 64 at most;
 * exactly 1 below 32 per window) that this instance then admits from locally, without a KV
 * round trip. Slots are counted in the shared counter before they are used, so the shared limit
 * is never exceeded — the margin is zero. The price is on the other side: slots an instance
 * leased but did not use in a window are lost to the others, at most `leaseSize - 1` per
 * instance and counter, so a window may admit up to that many calls fewer than its limit.
 */
export class RateLimiter {
  readonly #kv: KV;
  readonly #clock: () => number;
  readonly #leases = new Map<string, Lease>();
  /** The counter write in flight per counter key (one per instance at a time). */
  readonly #refills = new Map<string, Promise<void>>();

  constructor(kv: KV, clock: () => number = Date.now) {
    this.#kv = kv;
    this.#clock = clock;
  }

  /**
   * Takes one slot of every limit, in order; the first full window refuses the call with
   * `RATE_LIMITED` (retryable), saying when to retry. Fails closed when counters cannot be read.
   */
  async admit(limits: readonly ApplicableRateLimit[]): Promise<void> {
    for (const limit of limits) await this.#admitOne(limit);
  }

  /**
   * A leased slot when there is one; else this instance's one refill of that counter — calls
   * arriving meanwhile wait for it and use its lease instead of racing it for the counter.
   */
  async #admitOne(limit: ApplicableRateLimit): Promise<void> {
    for (;;) {
      if (this.#fromLease(limit)) return;
      const inFlight = this.#refills.get(limit.counterKey);
      if (inFlight === undefined) break;
      await inFlight.catch(() => undefined);
    }
    const refill = this.#take(limit).finally(() => this.#refills.delete(limit.counterKey));
    this.#refills.set(limit.counterKey, refill);
    await refill;
  }

  /** Uses a slot already leased for the current window, when there is one. */
  #fromLease(limit: ApplicableRateLimit): boolean {
    const lease = this.#leases.get(limit.counterKey);
    if (lease === undefined || lease.left <= 0) return false;
    const windowMs = limit.perSeconds * 1000;
    if (lease.windowStart !== Math.floor(this.#clock() / windowMs) * windowMs) {
      this.#leases.delete(limit.counterKey);
      return false;
    }
    lease.left -= 1;
    return true;
  }

  /** Keeps the slots of a lease beyond the one the current call uses. */
  #keep(key: string, windowStart: number, spare: number): void {
    if (spare <= 0) return;
    const lease = this.#leases.get(key);
    if (lease !== undefined && lease.windowStart === windowStart) {
      lease.left += spare;
      return;
    }
    if (this.#leases.size >= MAX_LEASES) this.#leases.clear();
    this.#leases.set(key, { windowStart, left: spare });
  }

  async #take(limit: ApplicableRateLimit): Promise<void> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      let entry;
      try {
        entry = await this.#kv.get(limit.counterKey);
      } catch {
        throw unavailable();
      }
      const live = entry !== null && entry.operation === 'PUT' ? entry : undefined;
      const state = live ? readState(live.value) : null;
      const now = this.#clock();
      const next = takeWindowSlots(state, now, limit, leaseSize(limit.requests));
      if (!next.allowed) throw limited(limit, next.retryAfterMs);
      const value = JSON.stringify(next.state);
      try {
        if (live) await this.#kv.update(limit.counterKey, value, live.revision);
        else await this.#kv.create(limit.counterKey, value);
      } catch {
        // Another instance moved the counter first: read it again.
        await sleep(Math.floor(Math.random() * 5 * attempt));
        continue;
      }
      this.#keep(limit.counterKey, next.state.windowStart, next.granted - 1);
      return;
    }
    throw unavailable();
  }
}

/** A stored counter, or null (a fresh window) when the value is not one. */
function readState(bytes: Uint8Array): WindowState | null {
  try {
    const state = JSON.parse(new TextDecoder().decode(bytes)) as Partial<WindowState>;
    if (Number.isSafeInteger(state.windowStart) && Number.isSafeInteger(state.count))
      return state as WindowState;
  } catch {
    // fall through
  }
  return null;
}

function limited(limit: ApplicableRateLimit, retryAfterMs: number): TollgateError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new TollgateError(
    'RATE_LIMITED',
    `Rate limit reached: at most ${limit.requests} calls per ${limit.perSeconds} s for this tool; retry in ${seconds} s.`,
    {
      details: [
        {
          path: 'retry_after_ms',
          message: `retry after ${retryAfterMs} ms`,
          expected: `at most ${limit.requests} calls per ${limit.perSeconds} s`,
          found: String(retryAfterMs),
        },
      ],
    },
  );
}

function unavailable(): TollgateError {
  return new TollgateError(
    'RATE_LIMITED',
    'Rate limit counters are unavailable, so the call was not run; retry shortly.',
    { details: [{ path: 'retry_after_ms', message: 'retry after 1000 ms', found: '1000' }] },
  );
}
