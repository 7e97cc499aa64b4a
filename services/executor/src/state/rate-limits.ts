import { setTimeout as sleep } from 'node:timers/promises';
import { TollgateError } from '@tollgate/core';
import type { KV } from '@tollgate/kit';
import { nextWindowState } from '@tollgate/policy';
import type { ApplicableRateLimit, WindowState } from '@tollgate/policy';

/** Compare-and-set attempts per counter before giving up under contention. */
const MAX_ATTEMPTS = 25;

/**
 * Rate limits declared in policies, enforced across every executor instance: one counter per
 * principal × tool × granting policy in the `tollgate_rate_limits` KV bucket, advanced with
 * compare-and-set (`kv.create` for a new counter, `kv.update` at the read revision), so two
 * instances can never both take the last slot of a window.
 */
export class RateLimiter {
  readonly #kv: KV;
  readonly #clock: () => number;

  constructor(kv: KV, clock: () => number = Date.now) {
    this.#kv = kv;
    this.#clock = clock;
  }

  /**
   * Takes one slot of every limit, in order; the first full window refuses the call with
   * `RATE_LIMITED` (retryable), saying when to retry. Fails closed when counters cannot be read.
   */
  async admit(limits: readonly ApplicableRateLimit[]): Promise<void> {
    for (const limit of limits) await this.#take(limit);
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
      const next = nextWindowState(state, now, limit);
      if (!next.allowed) throw limited(limit, next.retryAfterMs);
      const value = JSON.stringify(next.state);
      try {
        if (live) await this.#kv.update(limit.counterKey, value, live.revision);
        else await this.#kv.create(limit.counterKey, value);
        return;
      } catch {
        // Another instance moved the counter first: read it again.
        await sleep(Math.floor(Math.random() * 5 * attempt));
      }
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
