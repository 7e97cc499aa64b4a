/**
 * MCP sessions without server state: a session id is a random value and an HMAC binding it to
 * the principal, so any instance can check it and a session cannot be carried to another
 * principal. The session id is also the Tollgate session (memory, audit replay).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from '@tollgate/core';

export class SessionIds {
  readonly #key: Buffer;

  constructor(key: string) {
    this.#key = Buffer.from(key, 'utf8');
  }

  /** A new session of `principal`. */
  mint(principal: Principal): string {
    const nonce = randomBytes(16).toString('hex');
    return `mcp-${nonce}.${this.#mac(principal, nonce)}`;
  }

  /** True when `id` is a session this gateway minted for `principal`. */
  verify(principal: Principal, id: string): boolean {
    const match = /^mcp-([0-9a-f]{32})\.([0-9a-f]{32})$/.exec(id);
    if (match === null) return false;
    const expected = Buffer.from(this.#mac(principal, match[1]!), 'hex');
    return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
  }

  #mac(principal: Principal, nonce: string): string {
    const { tenant, agent, environment, user } = principal;
    return createHmac('sha256', this.#key)
      .update(JSON.stringify([nonce, tenant, agent, environment, user ?? null]))
      .digest('hex')
      .slice(0, 32);
  }
}

/**
 * The session of a request that carries none (the 2026-07-28 revision has no sessions, and a
 * client may skip the header): one per principal and access token, so one sign-in's calls
 * replay together.
 */
export function tokenSession(principal: Principal, token: string): string {
  const digest = createHash('sha256')
    .update(
      JSON.stringify([
        principal.tenant,
        principal.agent,
        principal.environment,
        principal.user ?? null,
        token,
      ]),
    )
    .digest('hex');
  return `mcp-t-${digest.slice(0, 32)}`;
}
