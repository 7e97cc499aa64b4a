/**
 * OAuth 2.1 client credentials for a URL upstream. Tollgate takes its own access token from the
 * token endpoint the operator declared — never one the upstream advertises, so the client
 * secret goes nowhere else, and the endpoint is one of the resource's egress-checked
 * destinations — keeps it until shortly before it expires, and takes a new one when the
 * upstream answers 401. The SDK transport asks before every request (its `AuthProvider`).
 * Neither the secret nor a token appears in an error; only the endpoint's status and its
 * registered OAuth error code do.
 */
import { TollgateError } from '@tollgate/core';
import type { CredentialResolver } from '@tollgate/core';
import type { McpOAuthClient } from '../kind/spec.js';

/** The part of the SDK's `AuthProvider` a transport calls. */
export interface BearerSource {
  token(): Promise<string>;
  onUnauthorized(): Promise<void>;
}

/** Largest token response read, bytes. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** A token is renewed this long before it expires. */
const RENEW_EARLY_MS = 30_000;
/** How long a token without `expires_in` is used. */
const DEFAULT_LIFETIME_MS = 60_000;
const ACCESS_TOKEN = /^[\x21-\x7e]{1,16384}$/;
const OAUTH_ERROR = /^[a-z_]{1,64}$/;

interface Held {
  token: string;
  renewAt: number;
}

/** Tokens by client and what it asks for, shared by every session of this process. */
const held = new Map<string, Held>();
const pending = new Map<string, Promise<Held>>();

export interface ClientCredentialsOptions {
  oauth: McpOAuthClient;
  /** The upstream's url: the default resource indicator. */
  serverUrl: string;
  /** The resource's name, for messages. */
  resource: string;
  credentials: CredentialResolver;
  timeoutMs: number;
  now?: () => number;
}

export function clientCredentials(options: ClientCredentialsOptions): BearerSource {
  const { oauth } = options;
  const now = options.now ?? Date.now;
  const audience = oauth.resource ?? options.serverUrl;
  const key = JSON.stringify([
    oauth.tokenUrl,
    oauth.clientId,
    oauth.clientSecretRef,
    oauth.scope ?? '',
    audience,
  ]);
  const take = (): Promise<Held> => {
    let taking = pending.get(key);
    if (taking === undefined) {
      taking = requestToken(options, audience, now).finally(() => pending.delete(key));
      pending.set(key, taking);
    }
    return taking;
  };
  return {
    async token() {
      const current = held.get(key);
      if (current !== undefined && current.renewAt > now()) return current.token;
      const fresh = await take();
      held.set(key, fresh);
      return fresh.token;
    },
    async onUnauthorized() {
      held.delete(key);
    },
  };
}

async function requestToken(
  options: ClientCredentialsOptions,
  audience: string,
  now: () => number,
): Promise<Held> {
  const { oauth, resource } = options;
  const where = `The token endpoint of ${resource}`;
  const secret = await clientSecret(options);
  const form = new URLSearchParams({ grant_type: 'client_credentials', resource: audience });
  if (oauth.scope !== undefined && oauth.scope !== '') form.set('scope', oauth.scope);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (oauth.clientAuth === 'client_secret_post') {
    form.set('client_id', oauth.clientId);
    form.set('client_secret', secret);
  } else {
    // RFC 6749 §2.3.1: both parts form-encoded before Basic encoding.
    const pair = `${encodeURIComponent(oauth.clientId)}:${encodeURIComponent(secret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  const started = now();
  let response: Response;
  try {
    response = await fetch(oauth.tokenUrl, {
      method: 'POST',
      headers,
      body: form,
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (err) {
    const timedOut = (err as { name?: string }).name === 'TimeoutError';
    throw new TollgateError(
      'UPSTREAM_UNAVAILABLE',
      timedOut
        ? `${where} did not answer within ${options.timeoutMs} ms.`
        : `${where} could not be reached.`,
    );
  }
  const body = await readCapped(response, where);
  if (!response.ok) {
    const code = oauthError(body);
    throw new TollgateError(
      response.status === 400 || response.status === 401
        ? 'CREDENTIAL_UNAVAILABLE'
        : 'UPSTREAM_UNAVAILABLE',
      `${where} refused the client (HTTP ${response.status}${code === undefined ? '' : `, ${code}`}).`,
    );
  }
  const answer = asObject(body);
  const token = answer?.access_token;
  const type = answer?.token_type;
  if (typeof token !== 'string' || !ACCESS_TOKEN.test(token)) {
    throw new TollgateError(
      'UPSTREAM_BAD_RESPONSE',
      `${where} answered without a usable access_token.`,
    );
  }
  if (typeof type !== 'string' || type.toLowerCase() !== 'bearer') {
    throw new TollgateError(
      'UPSTREAM_BAD_RESPONSE',
      `${where} issued a token of type ${typeof type === 'string' && OAUTH_ERROR.test(type.toLowerCase()) ? type : '(unknown)'}; only Bearer is supported.`,
    );
  }
  const expiresIn = answer?.expires_in;
  const lifetime =
    typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0
      ? expiresIn * 1000
      : DEFAULT_LIFETIME_MS;
  return { token, renewAt: started + Math.max(lifetime - RENEW_EARLY_MS, lifetime / 2) };
}

async function clientSecret(options: ClientCredentialsOptions): Promise<string> {
  let credential;
  try {
    credential = await options.credentials(options.oauth.clientSecretRef);
  } catch {
    const scheme = options.oauth.clientSecretRef.split(':')[0] ?? 'credential';
    throw new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      `The OAuth client secret of ${options.resource} (${scheme}://…) could not be resolved.`,
    );
  }
  switch (credential.kind) {
    case 'apiKey':
      return credential.apiKey;
    case 'bearer':
      return credential.token;
    default:
      throw new TollgateError(
        'CREDENTIAL_UNAVAILABLE',
        `The OAuth client secret of ${options.resource} is a ${credential.kind} credential; a secret string was expected.`,
      );
  }
}

async function readCapped(response: Response, where: string): Promise<unknown> {
  const reader = response.body?.getReader();
  if (reader === undefined) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new TollgateError(
        'UPSTREAM_BAD_RESPONSE',
        `${where} answered with more than ${MAX_RESPONSE_BYTES} bytes.`,
      );
    }
    chunks.push(value);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The registered OAuth error code of a refusal, when it is one; never its description. */
function oauthError(body: unknown): string | undefined {
  const code = asObject(body)?.error;
  return typeof code === 'string' && OAUTH_ERROR.test(code) ? code : undefined;
}
