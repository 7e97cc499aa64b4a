/**
 * The credential of an http resource, resolved just in time and put on the request the way
 * `connection.auth` says. OAuth2 client credentials are exchanged at the token URL (on the
 * declared host, through the same pinned sender) and the token is cached until shortly before
 * it expires. Errors name the scheme, never a secret or what the token endpoint said.
 */
import { createHash } from 'node:crypto';
import { TollgateError } from '@tollgate/core';
import type { Credential, CredentialResolver } from '@tollgate/core';
import type { HttpAuth } from '../kind/spec.js';
import { send } from './send.js';
import type { OutgoingRequest, SendLimits } from './send.js';

/** Tokens kept at most, least recently stored dropped first. */
const MAX_TOKENS = 256;
/** A token is renewed this long before the expiry the server announced. */
const EXPIRY_MARGIN_MS = 30_000;

const tokens = new Map<string, { token: string; expires: number }>();

/** Forgets cached OAuth2 tokens (connector close, tests). */
export function clearTokens(): void {
  tokens.clear();
}

async function resolve(
  ref: string,
  credentials: CredentialResolver,
  resource: string,
): Promise<Credential> {
  const scheme = /^([a-z]+):\/\//.exec(ref)?.[1] ?? 'unknown';
  try {
    return await credentials(ref);
  } catch {
    throw new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      `The credential for ${resource} (${scheme}://…) could not be resolved.`,
    );
  }
}

function unusable(resource: string, scheme: string): TollgateError {
  return new TollgateError(
    'CREDENTIAL_UNAVAILABLE',
    `The credential for ${resource} does not fit its auth scheme ${scheme}.`,
  );
}

/** The headers and query parameters that authenticate a request of the resource. */
export interface Authentication {
  headers: Record<string, string>;
  query: Record<string, string>;
}

/** Reads the credential and turns it into what the request carries. */
export async function authenticate(
  auth: HttpAuth | undefined,
  ref: string | undefined,
  credentials: CredentialResolver,
  limits: SendLimits,
): Promise<Authentication> {
  const none = { headers: {}, query: {} };
  if (ref === undefined || auth?.scheme === 'none') return none;
  const credential = await resolve(ref, credentials, limits.resource);
  const scheme = auth?.scheme ?? 'bearer';
  switch (scheme) {
    case 'bearer': {
      const token =
        credential.kind === 'bearer'
          ? credential.token
          : credential.kind === 'apiKey'
            ? credential.apiKey
            : undefined;
      if (token === undefined) throw unusable(limits.resource, scheme);
      return { headers: { authorization: `Bearer ${token}` }, query: {} };
    }
    case 'basic': {
      if (credential.kind !== 'basic') throw unusable(limits.resource, scheme);
      const encoded = Buffer.from(`${credential.username}:${credential.password}`).toString(
        'base64',
      );
      return { headers: { authorization: `Basic ${encoded}` }, query: {} };
    }
    case 'apiKey': {
      const key =
        credential.kind === 'apiKey'
          ? credential.apiKey
          : credential.kind === 'bearer'
            ? credential.token
            : undefined;
      if (key === undefined || auth?.scheme !== 'apiKey') throw unusable(limits.resource, scheme);
      return auth.in === 'header'
        ? { headers: { [auth.name.toLowerCase()]: key }, query: {} }
        : { headers: {}, query: { [auth.name]: key } };
    }
    case 'oauth2': {
      if (credential.kind !== 'basic' || auth?.scheme !== 'oauth2')
        throw unusable(limits.resource, scheme);
      const token = await clientCredentialsToken(auth, credential, limits);
      return { headers: { authorization: `Bearer ${token}` }, query: {} };
    }
  }
}

async function clientCredentialsToken(
  auth: Extract<HttpAuth, { scheme: 'oauth2' }>,
  credential: Extract<Credential, { kind: 'basic' }>,
  limits: SendLimits,
): Promise<string> {
  const url = new URL(auth.tokenUrl, limits.origin);
  const scopes = (auth.scopes ?? []).join(' ');
  // Keyed by a digest: the cache key holds no secret.
  const key = createHash('sha256')
    .update(JSON.stringify([url.href, scopes, credential.username, credential.password]))
    .digest('hex');
  const cached = tokens.get(key);
  if (cached !== undefined && cached.expires > Date.now()) return cached.token;
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (scopes !== '') form.set('scope', scopes);
  const request: OutgoingRequest = {
    method: 'POST',
    url,
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(credential.username)}:${encodeURIComponent(credential.password)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: Buffer.from(form.toString()),
  };
  const failed = (): TollgateError =>
    new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      `The token endpoint of ${limits.resource} did not issue a token.`,
    );
  let answer;
  try {
    answer = await send(request, { ...limits, maxBytes: 65_536 });
  } catch {
    throw failed();
  }
  if (answer.status !== 200) throw failed();
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw failed();
  }
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const token = record['access_token'];
  if (typeof token !== 'string' || token.length === 0 || token.length > 8192) throw failed();
  const lifetime = typeof record['expires_in'] === 'number' ? record['expires_in'] * 1000 : 300_000;
  tokens.set(key, { token, expires: Date.now() + Math.max(0, lifetime - EXPIRY_MARGIN_MS) });
  if (tokens.size > MAX_TOKENS) tokens.delete(tokens.keys().next().value as string);
  return token;
}
