/**
 * Verifies the bearer token an MCP client presents and says which principal it stands for.
 * Two kinds are accepted: access tokens of the operator's authorization servers (JWKS-verified,
 * audience bound to this server's resource URL, mapped by the claim rules) and Tollgate's own
 * agent tokens (for machine clients). Neither ever travels further: the gateway mints its own.
 */
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import type { AuthInfo, OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify } from 'jose';
import type { JWTVerifyGetKey } from 'jose';
import { isTollgateError } from '@tollgate/core';
import type { Principal, TokenVerifier } from '@tollgate/core';
import { principalFromClaims, scopesOf } from './rules.js';
import type { AuthorizationServer, IdentitySettings } from './rules.js';

/** What the gateway knows about a verified caller; rides in `AuthInfo.extra`. */
export interface Caller {
  principal: Principal;
  /** `oauth` (an authorization server's token) or `tollgate` (an agent token). */
  via: 'oauth' | 'tollgate';
}

const MAX_TOKEN_LENGTH = 8192;

/** `AuthInfo` for a verified caller; the client's token is not kept (nothing can forward it). */
export function callerOf(auth: AuthInfo | undefined): Caller | undefined {
  const caller = auth?.extra?.caller as Caller | undefined;
  return caller?.principal ? caller : undefined;
}

export class AccessTokenVerifier implements OAuthTokenVerifier {
  readonly #resource: URL;
  readonly #identity: IdentitySettings;
  readonly #tollgate: TokenVerifier;
  readonly #keys = new Map<string, JWTVerifyGetKey>();

  constructor(options: {
    resource: URL;
    identity: IdentitySettings;
    tollgate: TokenVerifier;
    /** Key sets per issuer (tests); default: fetched from each server's `jwksUri`. */
    keySets?: Map<string, JWTVerifyGetKey>;
  }) {
    this.#resource = options.resource;
    this.#identity = options.identity;
    this.#tollgate = options.tollgate;
    for (const server of options.identity.authorizationServers) {
      this.#keys.set(
        server.issuer,
        options.keySets?.get(server.issuer) ??
          createRemoteJWKSet(new URL(server.jwksUri), { cooldownDuration: 30_000 }),
      );
    }
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    if (token.length > MAX_TOKEN_LENGTH) throw invalid('the access token is too large');
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw invalid('the access token is not a JWT');
    }
    const server = this.#identity.authorizationServers.find((s) => s.issuer === issuer);
    return server ? this.#oauth(token, server) : this.#agentToken(token);
  }

  async #oauth(token: string, server: AuthorizationServer): Promise<AuthInfo> {
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(token, this.#keys.get(server.issuer)!, {
        issuer: server.issuer,
        audience: [this.#resource.href, this.#resource.href.replace(/\/$/, '')],
        algorithms: server.algorithms,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      throw invalid(reasonOf(err));
    }
    const principal = principalFromClaims(this.#identity.rules, claims);
    if (principal === undefined)
      throw invalid('no principal rule matches this token; ask the operator to map its client');
    const clientId = [claims.client_id, claims.azp, claims.sub].find((c) => typeof c === 'string');
    return {
      token: '',
      clientId: (clientId as string | undefined) ?? '',
      scopes: scopesOf(claims),
      expiresAt: claims.exp as number,
      resource: this.#resource,
      extra: { caller: { principal, via: 'oauth' } satisfies Caller },
    };
  }

  async #agentToken(token: string): Promise<AuthInfo> {
    let principal: Principal;
    try {
      principal = await this.#tollgate.verify(token);
    } catch (err) {
      throw invalid(
        isTollgateError(err)
          ? err.message.replace(/^Not authenticated: /, '').replace(/\.$/, '')
          : 'the token is not accepted',
      );
    }
    const { exp } = decodeJwt(token);
    // Agent tokens are not scoped: they carry what the required scopes grant.
    return {
      token: '',
      clientId: principal.agent,
      scopes: [...this.#identity.scopes],
      ...(typeof exp === 'number' ? { expiresAt: exp } : {}),
      resource: this.#resource,
      extra: { caller: { principal, via: 'tollgate' } satisfies Caller },
    };
  }
}

function reasonOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'the access token has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed)
    return err.claim === 'aud'
      ? 'the access token is for another resource (audience)'
      : `the access token's "${err.claim}" claim is not accepted`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'the access token signature is invalid';
  if (err instanceof joseErrors.JWKSNoMatchingKey)
    return 'the access token was signed by an unknown key';
  if (err instanceof joseErrors.JOSEAlgNotAllowed)
    return 'the access token uses an algorithm that is not allowed';
  if (err instanceof joseErrors.JWKSTimeout || !(err instanceof joseErrors.JOSEError))
    return 'the authorization server keys could not be fetched';
  return 'the access token is malformed';
}

function invalid(reason: string): OAuthError {
  return new OAuthError(OAuthErrorCode.InvalidToken, reason);
}
