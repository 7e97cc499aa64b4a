/** Default byte budget for what goes back to the agent. */
export const DEFAULT_MAX_BYTES = 32_768;

/** Items that fit a byte budget, and what fitting them cost. */
export interface FittedItems<T> {
  items: T[];
  /** Bytes of `wrap(items)` as JSON. */
  bytes: number;
  /** True when trailing items were dropped. */
  truncated: boolean;
}

/**
 * Keeps the longest prefix of `items` whose serialised form `wrap(prefix)` fits in `maxBytes`
 * (UTF-8 JSON). Trailing items are dropped first, so a cursor taken from the last kept item
 * continues exactly where the result stopped.
 */
export function fitToBytes<T>(
  items: readonly T[],
  maxBytes: number,
  wrap: (items: T[]) => unknown = (kept) => kept,
): FittedItems<T> {
  const size = (kept: T[]): number => Buffer.byteLength(JSON.stringify(wrap(kept)), 'utf8');
  const all = [...items];
  const full = size(all);
  if (full <= maxBytes) return { items: all, bytes: full, truncated: false };
  // Binary search for the longest prefix that fits (size grows with the prefix).
  let low = 0;
  let high = all.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (size(all.slice(0, mid)) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  const kept = all.slice(0, low);
  return { items: kept, bytes: size(kept), truncated: true };
}
