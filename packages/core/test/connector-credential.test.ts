import { describe, expect, it } from 'vitest';

import { parseCredentialSecret } from '../src/connector/credential.js';

describe('credential secret format', () => {
  it.each([
    [
      '{"username":"elastic","password":"pw"}',
      { kind: 'basic', username: 'elastic', password: 'pw' },
    ],
    ['{"apiKey":"aWQ6a2V5"}', { kind: 'apiKey', apiKey: 'aWQ6a2V5' }],
    ['{"token":"t0k"}', { kind: 'bearer', token: 't0k' }],
    ['{"kind":"none"}', { kind: 'none' }],
    ['  aWQ6a2V5\n', { kind: 'apiKey', apiKey: 'aWQ6a2V5' }],
  ])('credential - %s parses', (secret, credential) => {
    expect(parseCredentialSecret(secret)).toEqual(credential);
  });

  it.each([
    ['', 'Credential secret is malformed: it is empty.'],
    [
      '{"username":"canary-secret-value"',
      'Credential secret is malformed: it starts with "{" but is not valid JSON.',
    ],
    [
      '{"username":"u"}',
      'Credential secret is malformed: expected exactly one of {username, password}, {apiKey}, {token} or {kind: "none"}.',
    ],
    [
      '{"username":"u","password":""}',
      'Credential secret is malformed: "password" must be a non-empty string.',
    ],
    [
      '{"apiKey":"canary-secret-value","extra":1}',
      'Credential secret is malformed: expected exactly one of {username, password}, {apiKey}, {token} or {kind: "none"}.',
    ],
    ['{"kind":"basic"}', 'Credential secret is malformed: "kind" may only be "none".'],
  ])('credential - %j is rejected without quoting the secret', (secret, message) => {
    let caught: unknown;
    try {
      parseCredentialSecret(secret);
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: 'CREDENTIAL_UNAVAILABLE', message });
    expect(JSON.stringify(caught) + String(caught)).not.toContain('canary-secret-value');
  });
});
