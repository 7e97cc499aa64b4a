import {
  SignJWT,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  errors as joseErrors,
} from 'jose';
import type { JWK } from 'jose';
import { isIP } from 'node:net';
import { TollgateError } from '../errors/codes.js';

/**
 * Who is calling. It comes only from a verified, signed token — never from a payload. Roles
 * are not in the token: the policy bundle says which roles an agent has.
 */
export interface Principal {
  tenant: string;
  agent: string;
  environment: string;
  user?: string;
  /** The token's `jti`, for audit. */
  tokenId?: string;
  /**
   * The caller's network address as seen by a trusted front end (claim `ip`), for policy
   * conditions on IP ranges. Only an issuer the services trust can set it; absent on tokens
   * agents present themselves.
   */
  sourceIp?: string;
}

export const TOKEN_AUDIENCE = 'tollgate';
export const TOKEN_ALGORITHM = 'EdDSA';

/** A signing key pair of an issuer, as JWKs (the private one stays with the issuer). */
export interface IssuerKeys {
  issuer: string;
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export async function generateIssuerKeys(
  issuer: string,
  kid = `k-${Date.now().toString(36)}`,
): Promise<IssuerKeys> {
  const { privateKey, publicKey } = await generateKeyPair(TOKEN_ALGORITHM, {
    crv: 'Ed25519',
    extractable: true,
  });
  return {
    issuer,
    kid,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: TOKEN_ALGORITHM },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: TOKEN_ALGORITHM },
  };
}

/** Mints a principal token (dev issuer, tests, `tollgate token issue`). */
export async function issuePrincipalToken(
  keys: IssuerKeys,
  principal: Principal,
  options: { ttlSeconds?: number; audience?: string; tokenId?: string } = {},
): Promise<string> {
  const key = await importJWK(keys.privateJwk, TOKEN_ALGORITHM);
  const jwt = new SignJWT({
    tenant: principal.tenant,
    env: principal.environment,
    ...(principal.user ? { user: principal.user } : {}),
    ...(principal.sourceIp ? { ip: principal.sourceIp } : {}),
  })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid: keys.kid })
    .setIssuer(keys.issuer)
    .setAudience(options.audience ?? TOKEN_AUDIENCE)
    .setSubject(principal.agent)
    .setIssuedAt()
    .setJti(options.tokenId ?? crypto.randomUUID())
    .setExpirationTime(`${options.ttlSeconds ?? 3600}s`);
  return jwt.sign(key);
}

/** Trusted issuers: issuer name → its public keys. */
export interface TrustedIssuer {
  issuer: string;
  keys: JWK[];
}

type VerifyKey = Awaited<ReturnType<typeof importJWK>>;

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * Verifies tokens against configured issuer keys. Expired, forged, wrong-audience or
 * malformed tokens are `UNAUTHENTICATED`, with a reason that never echoes the token.
 */
export class TokenVerifier {
  readonly #issuers: Map<string, Map<string | undefined, VerifyKey>>;

  private constructor(issuers: Map<string, Map<string | undefined, VerifyKey>>) {
    this.#issuers = issuers;
  }

  static async create(trusted: TrustedIssuer[]): Promise<TokenVerifier> {
    const issuers = new Map<string, Map<string | undefined, VerifyKey>>();
    for (const t of trusted) {
      const keys = new Map<string | undefined, VerifyKey>();
      for (const jwk of t.keys) keys.set(jwk.kid, await importJWK(jwk, TOKEN_ALGORITHM));
      issuers.set(t.issuer, keys);
    }
    return new TokenVerifier(issuers);
  }

  /**
   * Whether `token` names a signing key (`kid`) of a trusted issuer — read from its header
   * without verifying anything. Lets a verifier that is one of several on a bus leave tokens
   * of other trust domains to their own verifier.
   */
  knowsKeyOf(token: string): boolean {
    let kid: unknown;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return false;
    }
    for (const keys of this.#issuers.values()) if (keys.has(kid as string | undefined)) return true;
    return false;
  }

  async verify(token: string | undefined, audience = TOKEN_AUDIENCE): Promise<Principal> {
    if (!token) throw unauthenticated('no principal token was presented');
    if (token.length > 8192) throw unauthenticated('the principal token is too large');
    let payload;
    try {
      ({ payload } = await jwtVerify(
        token,
        async (header) => {
          for (const keys of this.#issuers.values()) {
            const key = keys.get(header.kid);
            if (key) return key;
          }
          throw new joseErrors.JWKSNoMatchingKey();
        },
        { audience, algorithms: [TOKEN_ALGORITHM], issuer: [...this.#issuers.keys()] },
      ));
    } catch (err) {
      throw unauthenticated(reasonOf(err));
    }
    const { sub, tenant, env, user, jti, ip } = payload as Record<string, unknown>;
    if (typeof sub !== 'string' || !NAME.test(sub))
      throw unauthenticated('the token has no valid subject');
    if (typeof tenant !== 'string' || !NAME.test(tenant))
      throw unauthenticated('the token has no valid tenant');
    if (typeof env !== 'string' || !NAME.test(env))
      throw unauthenticated('the token has no valid environment');
    if (ip !== undefined && (typeof ip !== 'string' || isIP(ip) === 0))
      throw unauthenticated('the token has no valid ip claim');
    return {
      tenant,
      agent: sub,
      environment: env,
      ...(typeof user === 'string' && user ? { user } : {}),
      ...(typeof jti === 'string' ? { tokenId: jti } : {}),
      ...(typeof ip === 'string' ? { sourceIp: ip } : {}),
    };
  }
}

function reasonOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'the principal token has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    return `the principal token's "${err.claim}" claim is not accepted`;
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'the principal token signature is invalid';
  if (err instanceof joseErrors.JWKSNoMatchingKey)
    return 'the principal token was signed by an unknown key';
  if (err instanceof joseErrors.JOSEAlgNotAllowed)
    return 'the principal token uses an algorithm that is not allowed';
  return 'the principal token is malformed';
}

function unauthenticated(reason: string): TollgateError {
  return new TollgateError('UNAUTHENTICATED', `Not authenticated: ${reason}.`);
}
