import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import {
  findSecrets,
  isCredentialReference,
  isSecretKey,
  looksLikeSecret,
} from '../src/descriptor/secrets.js';

// Token-shaped test values are assembled from pieces so the source holds no scannable secret.
const ALNUM = 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0';

const SECRETS: Array<[string, string]> = [
  ['GitHub token', `ghp_${ALNUM.slice(0, 36)}`],
  ['GitHub token', `gho_${ALNUM.slice(0, 36)}`],
  ['GitHub token', `github_pat_11ABCDEFG0_${ALNUM}`],
  ['GitLab token', `glpat-${ALNUM.slice(0, 20)}`],
  ['Anthropic API key', `sk-ant-api03-${ALNUM}`],
  ['OpenAI API key', `sk-${ALNUM}`],
  ['OpenAI API key', `sk-proj-${ALNUM}`],
  ['Slack token', `xoxb-123456789012-${ALNUM.slice(0, 24)}`],
  ['AWS access key id', `AKIA${'IOSFODNN7EXAMPLE'}`],
  ['Google API key', `AIza${ALNUM.slice(0, 35)}`],
  ['JSON Web Token', `${'eyJhbGciOiJIUzI1NiJ9'}.${'eyJzdWIiOiIxMjM0In0'}.abc123def456`],
  ['Vault token', `hvs.${ALNUM.slice(0, 28)}`],
  [
    'PEM private key',
    `-----BEGIN RSA ${'PRIVATE KEY'}-----\nMIIEow…\n-----END RSA PRIVATE KEY-----`,
  ],
  ['PEM private key', `-----BEGIN OPENSSH ${'PRIVATE KEY'}-----`],
  ['URL with user:password', 'https://elastic:changeme@es.internal:9200'],
  ['URL with user:password', 'postgres://app:pw@db:5432/shop'],
  ['high-entropy string', `wJalrXUtnFEMI/K7MDENG/${'bPxRfiCYEXAMPLEKEY'}`],
  ['credential assignment in text', 'connect with password=hunter2 for now'],
];

const NOT_SECRETS: Array<[string, string]> = [
  [
    'an ordinary long description',
    'Orders placed in the web shop, one document per order, with customer, amounts and shipping.',
  ],
  ['a long word', 'internationalization_localization_globalization'],
  ['a UUID', '3fa85f64-5717-4562-b3fc-2c963f66afa6'],
  ['a sha256 hex digest', createHash('sha256').update('content').digest('hex')],
  ['a date format', 'strict_date_optional_time||epoch_millis'],
  ['a vault reference', 'vault://team-a/es-orders-readonly#api_key'],
  ['an endpoint', 'http://es.internal:9200'],
  ['a URL with a user but no password', 'https://user@example.com/path'],
  ['a hyphenated phrase starting with sk-', 'sk-learn-compatible-models-for-ranking'],
  ['prose about passwords', 'Task-oriented password reset tokens are not stored here'],
  ['a key-like phrase without a value', 'password: required'],
  ['a snake_case identifier with digits', 'customer_service_v2_backup_2024_eu_west_1a'],
  ['a CamelCase identifier with digits', 'ISO8601DateTimeWithTimezoneOffsetUTC2024'],
  ['a certificate header', '-----BEGIN CERTIFICATE-----'],
  ['a file reference', 'file:///etc/tollgate/secrets/es-orders-readonly-credentials-2024.json'],
  ['an action', 'es_orders.search'],
];

describe('secret detection', () => {
  test.each(SECRETS)('secrets - detects a %s', (reason, text) => {
    expect(looksLikeSecret(text)).toBe(reason);
  });

  test.each(NOT_SECRETS)('secrets - does not flag %s', (_name, text) => {
    expect(looksLikeSecret(text)).toBeUndefined();
  });

  test('secrets - a secret embedded in prose is found', () => {
    expect(looksLikeSecret(`use token ghp_${ALNUM.slice(0, 36)} for the API`)).toBe('GitHub token');
  });

  test('secrets - random keys are flagged (at least 95%), UUIDs and hex digests never', () => {
    const random = seededRandom(42);
    const base62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    const keys = Array.from({ length: 400 }, () =>
      Array.from({ length: 40 }, () => base62[Math.floor(random() * base62.length)]).join(''),
    );
    const flagged = keys.filter((key) => looksLikeSecret(key) === 'high-entropy string').length;
    expect(flagged / keys.length).toBeGreaterThanOrEqual(0.95);
    for (let i = 0; i < 200; i++) {
      expect(looksLikeSecret(randomUUID())).toBeUndefined();
      expect(looksLikeSecret(randomBytes(32).toString('hex'))).toBeUndefined();
    }
  });

  test('secrets - a base64 digest is indistinguishable from a key and is flagged', () => {
    expect(looksLikeSecret(`sha256-${createHash('sha256').update('x').digest('base64')}`)).toBe(
      'high-entropy string',
    );
  });

  test('secrets - keys named like secrets may hold references but not literals', () => {
    const findings = findSecrets({
      password: 'vault://team-a/es#password',
      apiKey: 'env://ES_API_KEY',
      token: 'abc',
      client_secret: ['one', 'two'],
      pin_code: 1234,
      passphrase: 1234,
      empty_password: '',
      credentialRef: 'es-readonly',
      tokenizer: 'standard',
      description: 'the token is issued per agent',
    });
    expect(findings).toEqual([
      { path: 'token', reason: 'literal value under a secret-named key' },
      { path: 'client_secret[0]', reason: 'literal value under a secret-named key' },
      { path: 'client_secret[1]', reason: 'literal value under a secret-named key' },
      { path: 'passphrase', reason: 'literal value under a secret-named key' },
    ]);
  });

  test('secrets - findings name paths under the given prefix and never carry the value', () => {
    const key = `AKIA${'IOSFODNN7EXAMPLE'}`;
    const findings = findSecrets({ notes: [{ text: `key ${key}` }], [key]: true }, 'preferences');
    expect(findings).toEqual([
      { path: 'preferences.notes[0].text', reason: 'AWS access key id' },
      { path: `preferences.${key}`, reason: 'key: AWS access key id' },
    ]);
    expect(JSON.stringify(findings.map((f) => f.reason))).not.toContain(key);
  });

  test('secrets - cyclic input terminates', () => {
    const node: Record<string, unknown> = { password: 'x1' };
    node.self = node;
    expect(findSecrets(node)).toEqual([
      { path: 'password', reason: 'literal value under a secret-named key' },
    ]);
  });

  test('secrets - helpers classify keys and references', () => {
    expect(
      [
        'password',
        'api_key',
        'clientSecret',
        'AWS_SECRET_ACCESS_KEY',
        'Authorization',
        'pwd',
      ].every(isSecretKey),
    ).toBe(true);
    expect(['credentialRef', 'tokenizer', 'description', 'secretariat'].some(isSecretKey)).toBe(
      false,
    );
    expect(isCredentialReference('env://ES_KEY')).toBe(true);
    expect(isCredentialReference('vault://a/b')).toBe(true);
    expect(isCredentialReference('https://a/b')).toBe(false);
  });
});

/** A small deterministic generator (mulberry32), so rate assertions do not flake. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
