import { issuePrincipalToken } from '@tollgate/core';
import type { IssuerKeys, Principal } from '@tollgate/core';

/**
 * The short-lived Tollgate tokens the gateway calls the synthesizer and executor with: one per
 * principal and caller address, signed with the gateway's own issuer key (which those services
 * trust), carrying the address as the `ip` claim so policy can test IP ranges. A token is
 * reused until half its life has passed.
 */
export class CallTokens {
  readonly #keys: IssuerKeys;
  readonly #ttlSeconds: number;
  readonly #clock: () => number;
  readonly #minted = new Map<string, { token: Promise<string>; renewAt: number }>();

  constructor(keys: IssuerKeys, ttlSeconds: number, clock: () => number = Date.now) {
    this.#keys = keys;
    this.#ttlSeconds = ttlSeconds;
    this.#clock = clock;
  }

  /** A token for `principal` calling from `sourceIp` (none: no address is claimed). */
  tokenFor(principal: Principal, sourceIp: string | undefined): Promise<string> {
    const { tenant, agent, environment, user } = principal;
    const key = JSON.stringify([tenant, agent, environment, user ?? null, sourceIp ?? null]);
    const now = this.#clock();
    const hit = this.#minted.get(key);
    if (hit !== undefined && hit.renewAt > now) return hit.token;
    const token = issuePrincipalToken(
      this.#keys,
      { tenant, agent, environment, ...(user ? { user } : {}), ...(sourceIp ? { sourceIp } : {}) },
      { ttlSeconds: this.#ttlSeconds },
    );
    this.#minted.set(key, { token, renewAt: now + (this.#ttlSeconds * 1000) / 2 });
    token.catch(() => this.#minted.delete(key));
    if (this.#minted.size > 50_000) this.#sweep(now);
    return token;
  }

  #sweep(now: number): void {
    for (const [key, entry] of this.#minted) if (entry.renewAt <= now) this.#minted.delete(key);
  }
}
