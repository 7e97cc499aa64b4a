/**
 * Usage signals with exponential decay: each use adds 1, and the score halves every half-life,
 * so a burst of use long ago weighs less than steady use now. Signals also remember the last
 * event ids they counted, so a redelivered event is counted once.
 */

/** A decayed count as stored: the score at `at` (ms since epoch). */
export interface DecayedScore {
  score: number;
  at: number;
}

/** The score of `signal` carried forward to `now` (never forward-dated). */
export function decayedScore(signal: DecayedScore, now: number, halfLifeMs: number): number {
  const elapsed = Math.max(0, now - signal.at);
  return signal.score * Math.pow(2, -elapsed / halfLifeMs);
}

/** How many event ids a signal remembers for redelivery checks. */
export const REMEMBERED_EVENTS = 64;

/** A usage signal: its decayed score and the events already counted. */
export interface UsageSignal extends DecayedScore {
  seen: string[];
}

/** What counting one use did. */
export interface CountedUse {
  signal: UsageSignal;
  /** False when the event had been counted before (nothing changed). */
  counted: boolean;
  /** The score before this use, decayed to the use's time. */
  before: number;
}

/**
 * Counts one use at `at` into `signal` (undefined = first use). Uses arriving out of order
 * are decayed to the signal's time instead of moving it backwards.
 */
export function countUse(
  signal: UsageSignal | undefined,
  eventId: string,
  at: number,
  halfLifeMs: number,
): CountedUse {
  if (signal === undefined) {
    return { signal: { score: 1, at, seen: [eventId] }, counted: true, before: 0 };
  }
  if (signal.seen.includes(eventId)) return { signal, counted: false, before: signal.score };
  const seen = [...signal.seen, eventId].slice(-REMEMBERED_EVENTS);
  if (at >= signal.at) {
    const before = decayedScore(signal, at, halfLifeMs);
    return { signal: { score: before + 1, at, seen }, counted: true, before };
  }
  const late = Math.pow(2, -(signal.at - at) / halfLifeMs);
  return {
    signal: { score: signal.score + late, at: signal.at, seen },
    counted: true,
    before: signal.score,
  };
}
