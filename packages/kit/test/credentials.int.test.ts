import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialResolver } from '../src/index.js';

// A loopback server speaking Vault's KV v2 read API (GET /v1/<mount>/data/<path>).
const secrets: Record<string, Record<string, string>> = {
  '/v1/secret/data/team-a/es-orders': { username: 'reader', password: 'canary-pw-1' },
  '/v1/secret/data/team-a/api': { apiKey: 'canary-key-2', note: 'x' },
};
let vaultAddr = '';
let requests = 0;
const server = createServer((req, res) => {
  requests++;
  if (req.headers['x-vault-token'] !== 'root-token') {
    res.writeHead(403).end('{"errors":["permission denied"]}');
    return;
  }
  const data = secrets[req.url ?? ''];
  if (!data) {
    res.writeHead(404).end('{"errors":[]}');
    return;
  }
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ data: { data, metadata: { version: 1 } } }));
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  vaultAddr = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe('credentials', () => {
  it('credentials - env://, file:// and vault:// references resolve to typed credentials', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tg-cred-'));
    await writeFile(join(dir, 'es.json'), '{"token":"canary-tok-3"}\n');
    const resolve = createCredentialResolver({
      env: { ES_KEY: 'canary-env-4', VAULT_ADDR: vaultAddr, VAULT_TOKEN: 'root-token' },
      baseDir: dir,
    });
    expect(await resolve('env://ES_KEY')).toEqual({ kind: 'apiKey', apiKey: 'canary-env-4' });
    expect(await resolve('file://es.json')).toEqual({ kind: 'bearer', token: 'canary-tok-3' });
    expect(await resolve('vault://secret/team-a/es-orders')).toEqual({
      kind: 'basic',
      username: 'reader',
      password: 'canary-pw-1',
    });
    expect(await resolve('vault://secret/team-a/api#apiKey')).toEqual({
      kind: 'apiKey',
      apiKey: 'canary-key-2',
    });
  });

  it('credentials - resolved values are cached briefly', async () => {
    const resolve = createCredentialResolver({
      env: { VAULT_ADDR: vaultAddr, VAULT_TOKEN: 'root-token' },
      cacheTtlMs: 60_000,
    });
    const before = requests;
    await resolve('vault://secret/team-a/es-orders');
    await resolve('vault://secret/team-a/es-orders');
    expect(requests - before).toBe(1);
  });

  it('credentials - failures say what is wrong without the secret', async () => {
    const resolve = createCredentialResolver({
      env: { VAULT_ADDR: vaultAddr, VAULT_TOKEN: 'wrong' },
      cacheTtlMs: 0,
    });
    const cases: Array<[string, string]> = [
      [
        'env://MISSING',
        'Credential env:// reference is unavailable: environment variable MISSING is not set.',
      ],
      [
        'file:///nonexistent/x',
        'Credential file:// reference is unavailable: file cannot be read (ENOENT).',
      ],
      [
        'vault://secret/team-a/es-orders',
        'Credential vault:// reference is unavailable: Vault answered HTTP 403.',
      ],
      [
        'http://x',
        'Credential reference has an unknown scheme (expected env://, file:// or vault://).',
      ],
    ];
    for (const [ref, message] of cases) {
      await expect(resolve(ref)).rejects.toMatchObject({ code: 'CREDENTIAL_UNAVAILABLE', message });
    }
    const noVault = createCredentialResolver({ env: {} });
    await expect(noVault('vault://secret')).rejects.toThrow(
      'Credential vault:// reference is unavailable: the reference is malformed (expected vault://<mount>/<path>[#key]).',
    );
    await expect(noVault('vault://secret/x')).rejects.toThrow(
      'VAULT_ADDR and VAULT_TOKEN must be set',
    );
  });

  it('credentials - what the namespace parse refuses is never fetched (no traversal by the URL parser or the OS)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tg-cred-'));
    await writeFile(join(dir, 'es.json'), '{"token":"canary-tok-5"}\n');
    const resolve = createCredentialResolver({
      env: { 'A.B': 'canary-env-6', VAULT_ADDR: vaultAddr, VAULT_TOKEN: 'root-token' },
      baseDir: join(dir, 'sub'),
      cacheTtlMs: 0,
    });
    const before = requests;
    const cases: Array<[string, string]> = [
      // fetch() would normalise /data/team-b/x/../../team-a/es-orders to team-a's secret
      [
        'vault://secret/team-b/x/../../team-a/es-orders',
        'it has a path segment made of dots (. or ..)',
      ],
      ['vault://secret/team-b/%2e%2e/team-a/es-orders', 'it holds a percent-encoded character (%)'],
      ['vault://secret/team-a/api#apiKey#x', 'it has more than one #'],
      ['file://../es.json', 'it has a path segment made of dots (. or ..)'],
      [`file://${dir}//es.json`, 'it has an empty path segment'],
      ['env://A.B', 'the variable name must match [A-Za-z_][A-Za-z0-9_]*'],
    ];
    for (const [ref, problem] of cases) {
      const scheme = ref.split('://')[0];
      await expect(resolve(ref)).rejects.toMatchObject({
        code: 'CREDENTIAL_UNAVAILABLE',
        message: `Credential ${scheme}:// reference is unavailable: the reference is malformed (${problem}).`,
      });
    }
    expect(requests).toBe(before);
  });
});
