import { TollgateError } from '../errors/codes.js';

/**
 * A credential resolved from a `credentialRef`, just in time for one call. Connectors hold it
 * only as long as the upstream client needs it; it is never logged, stored in a descriptor,
 * audited or put in an error.
 */
export type Credential =
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'apiKey'; apiKey: string }
  | { kind: 'bearer'; token: string }
  | { kind: 'none' };

/**
 * Resolves a `credentialRef` (`env://VAR`, `file://path`, `vault://path#key`) to a credential.
 * Implemented by the service kit; connectors receive it injected. Rejects when the secret
 * cannot be read; the rejection must not carry the secret.
 */
export type CredentialResolver = (ref: string) => Promise<Credential>;

const MAX_SECRET_LENGTH = 16_384;

/**
 * Parses the text a secret store holds for a credential. The format is:
 *
 * - `{"username":"u","password":"p"}` — HTTP basic auth;
 * - `{"apiKey":"<base64 id:key>"}` — an API key (sent as the kind's API-key scheme);
 * - `{"token":"…"}` — a bearer token;
 * - `{"kind":"none"}` — explicitly no authentication;
 * - any other non-empty text (not starting with `{`) — an API key, surrounding whitespace trimmed.
 *
 * Errors name what is wrong with the shape, never the secret's content.
 */
export function parseCredentialSecret(secret: string): Credential {
  const text = secret.trim();
  if (text.length === 0) throw invalidSecret('it is empty');
  if (text.length > MAX_SECRET_LENGTH) throw invalidSecret('it is longer than 16384 characters');
  if (!text.startsWith('{')) return { kind: 'apiKey', apiKey: text };

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidSecret('it starts with "{" but is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidSecret('it is not a JSON object');
  }
  const record = parsed as Record<string, unknown>;
  const keys = Object.keys(record).sort().join(',');
  switch (keys) {
    case 'password,username':
      return {
        kind: 'basic',
        username: nonEmpty(record['username'], 'username'),
        password: nonEmpty(record['password'], 'password'),
      };
    case 'apiKey':
      return { kind: 'apiKey', apiKey: nonEmpty(record['apiKey'], 'apiKey') };
    case 'token':
      return { kind: 'bearer', token: nonEmpty(record['token'], 'token') };
    case 'kind':
      if (record['kind'] === 'none') return { kind: 'none' };
      throw invalidSecret('"kind" may only be "none"');
    default:
      throw invalidSecret(
        'expected exactly one of {username, password}, {apiKey}, {token} or {kind: "none"}',
      );
  }
}

function nonEmpty(value: unknown, key: string): string {
  if (typeof value === 'string' && value.length > 0) return value;
  throw invalidSecret(`"${key}" must be a non-empty string`);
}

function invalidSecret(reason: string): TollgateError {
  return new TollgateError('CREDENTIAL_UNAVAILABLE', `Credential secret is malformed: ${reason}.`);
}
