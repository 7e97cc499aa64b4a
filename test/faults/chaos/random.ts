/**
 * The campaign's randomness: a small seeded generator (mulberry32), so a seed names a run and
 * `trialSeed(seed, i)` names one trial of it — the fault, its target and how long it is held
 * are drawn from that alone, and rerunning one trial draws them again.
 */
export interface Random {
  /** In [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  between(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
}

export function seeded(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    between: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    shuffle: (items) => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
  };
}

/** The seed of trial `index` of the campaign seeded `seed` (murmur3's finalizer mixes them). */
export function trialSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The fault of trial `index`: trials come in rounds of every fault once, each round in an
 * order drawn from the seed, so ten trials already meet every fault.
 */
export function faultOf<T>(faults: readonly T[], seed: number, index: number): T {
  const round = Math.floor(index / faults.length);
  return seeded(trialSeed(seed, -1 - round)).shuffle(faults)[index % faults.length]!;
}

/** The p-th percentile (0..100) of `values`, nearest rank; NaN when empty. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}
