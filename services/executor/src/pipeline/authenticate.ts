import { TollgateError } from '@tollgate/core';
import type { Principal, TokenVerifier } from '@tollgate/core';

/** How long a verified token is trusted without checking its signature again, at most. */
const MAX_CACHE_MS = 60_000;

export interface AuthenticatorOptions {
  /** Verified tokens remembered (default 10 000); least recently used leave first. */
  maxEntries?: number;
  clock?: () => number;
}

/**
 * Establishes who is calling from the `authorization: Bearer <token>` header, never from the
 * payload. A token's signature is checked once and the principal remembered until the token
 * expires (at most a minute), so steady traffic does not pay for signature checks.
 */
export class Authenticator {
  readonly #verifier: TokenVerifier;
  readonly #maxEntries: number;
  readonly #clock: () => number;
  readonly #verified = new Map<string, { principal: Principal; until: number }>();

  constructor(verifier: TokenVerifier, options: AuthenticatorOptions = {}) {
    this.#verifier = verifier;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#clock = options.clock ?? Date.now;
  }

  /** The principal the header's token names; `UNAUTHENTICATED` when missing, expired, forged or foreign. */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    const token = bearerToken(authorization);
    const now = this.#clock();
    const hit = this.#verified.get(token);
    if (hit !== undefined) {
      this.#verified.delete(token);
      if (hit.until > now) {
        this.#verified.set(token, hit);
        return hit.principal;
      }
    }
    const principal = await this.#verifier.verify(token);
    const expires = expiryOf(token);
    const until = Math.min(expires ?? now, now + MAX_CACHE_MS);
    if (until > now) {
      this.#verified.set(token, { principal, until });
      if (this.#verified.size > this.#maxEntries) {
        const oldest = this.#verified.keys().next();
        if (oldest.done !== true) this.#verified.delete(oldest.value);
      }
    }
    return principal;
  }
}

function bearerToken(authorization: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (match === null) {
    throw new TollgateError(
      'UNAUTHENTICATED',
      authorization
        ? 'Not authenticated: the authorization header is not "Bearer <token>".'
        : 'Not authenticated: no principal token was presented.',
    );
  }
  return match[1] as string;
}

/** The `exp` claim of an already verified token, epoch ms. */
function expiryOf(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
    return typeof payload?.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
