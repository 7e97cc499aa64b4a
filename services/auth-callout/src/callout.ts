/**
 * The NATS auth callout (https://docs.nats.io, "Auth Callout"): the server sends every CONNECT
 * that no configured user matched to `$SYS.REQ.USER.AUTH` as a signed authorization request;
 * this answers with a signed authorization response holding either a user JWT (the account the
 * connection joins, its permissions, when it expires) or an error.
 *
 * The connection's `auth_token` is a Tollgate principal token. It is verified exactly as the
 * services verify it (issuer keys, audience, expiry); the user it yields lives no longer than
 * the token, so the server closes the connection when the token expires.
 */
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { decode, encodeAuthorizationResponse, encodeUser, fromPublic } from '@nats-io/jwt';
import type { AuthorizationRequest, ClaimsData, KeyPair } from '@nats-io/jwt';
import { EVENTS_TOKEN_AUDIENCE, TOKEN_AUDIENCE, TollgateError } from '@tollgate/core';
import type { Principal, TokenVerifier } from '@tollgate/core';
import { agentPermissions, subscriberPermissions } from './permissions.js';
import type { BusPermissions } from './permissions.js';

/** What the callout needs: who issues tokens, and the key it signs NATS users with. */
export interface CalloutDeps {
  verifier: TokenVerifier;
  /** The account NKey named `issuer` in the server's `auth_callout` block (with its seed). */
  issuer: KeyPair;
  /** The account authenticated connections join (config mode: its name). */
  account: string;
  /** Longest a user may live, whatever its token says (seconds). */
  maxTtlSeconds: number;
  now?: () => number;
}

/**
 * One decision, for the log (never the token). `response` is undefined when the token was
 * signed by a key this callout does not know: another callout on the bus (another trust
 * domain) may know it, and if none answers the server refuses the connection itself.
 */
export interface CalloutDecision {
  response: string | undefined;
  /** Set when the connection was let in. */
  principal?: Principal;
  role?: 'agent' | 'subscriber';
  /** Set when it was refused. */
  reason?: string;
}

/** Answers one authorization request (the message body the server sent). */
export async function authorize(request: Uint8Array, deps: CalloutDeps): Promise<CalloutDecision> {
  let claims: ClaimsData<AuthorizationRequest>;
  try {
    // Verifies the signature against the `iss` key: the server that asked.
    claims = decode<AuthorizationRequest>(new TextDecoder().decode(request));
  } catch (err) {
    // Nothing to answer to: without a readable request there is no user key to address.
    throw new Error(`not an authorization request: ${(err as Error).message}`);
  }
  const req = claims.nats;
  const userKey = req.user_nkey;
  const serverId = req.server_id?.id;
  if (typeof userKey !== 'string' || typeof serverId !== 'string' || claims.iss !== serverId) {
    throw new Error('authorization request without a user key or from another server');
  }
  const refuse = async (reason: string): Promise<CalloutDecision> => ({
    response: await encodeAuthorizationResponse(
      userKey,
      serverId,
      deps.issuer,
      { error: reason },
      {},
    ),
    reason,
  });

  const token = req.connect_opts?.auth_token;
  if (typeof token !== 'string' || token === '') {
    return refuse('no Tollgate token was presented at CONNECT (the NATS "token" option)');
  }
  if (!deps.verifier.knowsKeyOf(token) && looksSigned(token)) {
    return {
      response: undefined,
      reason: 'the token was signed by a key this callout does not know',
    };
  }
  const role = audienceOf(token) === EVENTS_TOKEN_AUDIENCE ? 'subscriber' : 'agent';
  let principal: Principal;
  try {
    principal = await deps.verifier.verify(
      token,
      role === 'subscriber' ? EVENTS_TOKEN_AUDIENCE : TOKEN_AUDIENCE,
    );
  } catch (err) {
    return refuse(err instanceof TollgateError ? err.message : 'the token could not be verified');
  }
  const permissions =
    role === 'subscriber' ? subscriberPermissions(principal) : agentPermissions(principal);
  const now = Math.floor((deps.now?.() ?? Date.now()) / 1000);
  const expires = Math.min(expiryOf(token) ?? now + deps.maxTtlSeconds, now + deps.maxTtlSeconds);
  const user = await encodeUser(
    `${role}:${principal.tenant}/${principal.environment}/${principal.agent}`,
    fromPublic(userKey),
    deps.issuer,
    natsPermissions(permissions),
    { aud: deps.account, exp: expires },
  );
  return {
    response: await encodeAuthorizationResponse(userKey, serverId, deps.issuer, { jwt: user }, {}),
    principal,
    role,
  };
}

/** Permissions in the user JWT's terms: allow lists, and an explicit deny-all for none. */
function natsPermissions(p: BusPermissions) {
  return {
    pub: p.publish.length > 0 ? { allow: p.publish } : { deny: ['>'] },
    sub: p.subscribe.length > 0 ? { allow: p.subscribe } : { deny: ['>'] },
  };
}

/** The token's audience, read before verifying only to pick which audience to verify. */
function audienceOf(token: string): string | undefined {
  try {
    const aud = decodeJwt(token).aud;
    return Array.isArray(aud) ? aud[0] : aud;
  } catch {
    return undefined;
  }
}

/** Whether `token` is a JWS with a key id at all (anything else is refused outright). */
function looksSigned(token: string): boolean {
  try {
    return typeof decodeProtectedHeader(token).kid === 'string';
  } catch {
    return false;
  }
}

/** The `exp` of a token that has already been verified. */
function expiryOf(token: string): number | undefined {
  const exp = decodeJwt(token).exp;
  return typeof exp === 'number' ? exp : undefined;
}
