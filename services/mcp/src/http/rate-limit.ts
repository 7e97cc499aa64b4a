/**
 * Requests per principal per minute, as a token bucket per principal (refilled continuously,
 * bursts up to the per-minute count). Local to one instance: behind a load balancer each
 * instance admits its share; the executor's policy rate limits still hold across all of them.
 */
export class PrincipalRateLimiter {
  readonly #perMinute: number;
  readonly #clock: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perMinute: number, clock: () => number = Date.now) {
    this.#perMinute = perMinute;
    this.#clock = clock;
  }

  /** 0 when admitted, else how many seconds to wait before the next request would be. */
  admit(key: string): number {
    if (this.#perMinute <= 0) return 0;
    const now = this.#clock();
    const rate = this.#perMinute / 60_000;
    const bucket = this.#buckets.get(key) ?? { tokens: this.#perMinute, at: now };
    bucket.tokens = Math.min(this.#perMinute, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > 100_000) this.#sweep(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000));
  }

  #sweep(now: number): void {
    for (const [key, b] of this.#buckets) if (now - b.at > 60_000) this.#buckets.delete(key);
  }
}
