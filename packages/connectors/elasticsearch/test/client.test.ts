import { afterEach, describe, expect, it } from 'vitest';

import { checkEndpoint, clientFor, closeClients } from '../src/client.js';

describe('client pool', () => {
  afterEach(async () => {
    await closeClients();
  });

  it('client - one client per endpoint and credential, reused across calls', async () => {
    const basic = { kind: 'basic' as const, username: 'u', password: 'p' };
    const first = await clientFor('http://127.0.0.1:9200/', basic);
    expect(await clientFor('http://127.0.0.1:9200', { ...basic })).toBe(first);
    expect(await clientFor('http://127.0.0.1:9200', { ...basic, password: 'other' })).not.toBe(
      first,
    );
    expect(await clientFor('http://127.0.0.1:9201', basic)).not.toBe(first);
  });

  it('client - closeClients empties the pool', async () => {
    const first = await clientFor('http://127.0.0.1:9200', { kind: 'none' });
    await closeClients();
    expect(await clientFor('http://127.0.0.1:9200', { kind: 'none' })).not.toBe(first);
  });

  it.each([
    [
      'http://user:pw@es:9200',
      'Elasticsearch endpoint must not contain user info; use credentialRef.',
    ],
    ['ftp://es', 'Elasticsearch endpoint must be an http or https URL.'],
    ['not a url', 'Elasticsearch endpoint is not a valid URL.'],
  ])('client - endpoint %s is rejected', (endpoint, message) => {
    expect(() => checkEndpoint(endpoint)).toThrow(
      expect.objectContaining({ code: 'DESCRIPTOR_INVALID', message }),
    );
  });
});
