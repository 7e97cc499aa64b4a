import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { DEFAULT_CREDENTIAL_NAMESPACES, parseCredentialNamespaces } from '@tollgate/core';
import { EventTypes } from '@tollgate/kit';
import { ordersResource, seedOrders } from '../../../test/fixtures/orders.js';
import { startEsProxy } from '../../../test/security/support/es-proxy.js';
import type { EsProxy } from '../../../test/security/support/es-proxy.js';
import { eventually } from '../../../test/support/infra.js';
import { ES_URL, ORDERS_INDEX, startHarness } from './support/harness.js';
import type { Harness, Outcome } from './support/harness.js';

/**
 * Defence in depth: resource entries that reach the executor's KV bucket without the registry's
 * check (rules changed since apply, or the entry was written by something else) name credentials
 * outside team-a/prod's namespace. The credential stage must refuse them before resolving
 * anything: no variable read, no Vault request, nothing sent to Elasticsearch.
 */
const OWN_VAR = 'TOLLGATE_TEAM_A__PROD__ES_ORDERS';
const FOREIGN_VAR = 'TOLLGATE_TEAM_B__PROD__ES_ORDERS';
const OWN_SECRET = `CANARY-own-${randomBytes(8).toString('hex')}`;
const FOREIGN_SECRET = `CANARY-foreign-${randomBytes(8).toString('hex')}`;
const VAULT_TOKEN = `CANARY-vault-${randomBytes(8).toString('hex')}`;
const EXPECTED =
  'a reference starting with vault://secret/team-a/prod/, ' +
  'file:///etc/tollgate/credentials/team-a/prod/ or env://TOLLGATE_TEAM_A__PROD__';

/** Every environment variable the executor's resolver read. */
const reads: string[] = [];
let vaultRequests = 0;
let vault: Server;
let h: Harness;
let proxy: EsProxy;

async function startVault(): Promise<string> {
  vault = createServer((_req, res) => {
    vaultRequests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: { data: { api_key: FOREIGN_SECRET } } }));
  });
  await new Promise<void>((resolve) => vault.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(vault.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const vaultUrl = await startVault();
  const env = new Proxy<Record<string, string>>(
    {
      [OWN_VAR]: OWN_SECRET,
      [FOREIGN_VAR]: FOREIGN_SECRET,
      VAULT_ADDR: vaultUrl,
      VAULT_TOKEN,
    },
    {
      get(target, key) {
        if (typeof key === 'string') reads.push(key);
        return Reflect.get(target, key) as unknown;
      },
    },
  );
  h = await startHarness({
    noExecutor: true,
    credentials: { env, cacheTtlMs: 0 },
    credentialNamespaces: parseCredentialNamespaces(DEFAULT_CREDENTIAL_NAMESPACES),
  });
  await seedOrders(h.es, ORDERS_INDEX);
  proxy = await startEsProxy(ES_URL);
  const resource = (name: string, credentialRef: string) =>
    ordersResource({ name, endpoint: proxy.url, index: ORDERS_INDEX, credentialRef });
  const resources = [
    { descriptor: resource('orders_own', `env://${OWN_VAR}`), version: 1 },
    { descriptor: resource('orders_foreign_env', `env://${FOREIGN_VAR}`), version: 1 },
    {
      descriptor: resource('orders_foreign_vault', 'vault://secret/team-b/prod/es-orders#api_key'),
      version: 1,
    },
    {
      descriptor: resource('orders_staging', 'vault://secret/team-a/staging/es-orders#api_key'),
      version: 1,
    },
    {
      descriptor: resource('orders_dot', 'file:///etc/tollgate/credentials/team-a/prod/./es.json'),
      version: 1,
    },
  ];
  for (const r of resources) await h.publishResource(r.descriptor, r.version);
  await h.publishBundle(resources, 1);
  h.running = await h.startExecutor();
});
afterAll(async () => {
  await h?.stop();
  await proxy?.close();
  await new Promise<void>((resolve) => (vault ? vault.close(() => resolve()) : resolve()));
});

const byId = { filters: [{ field: 'id', op: 'eq', value: '12345' }] };

/** The refusal the credential stage answers with, and its audit event. */
async function expectRefused(answer: Outcome, resource: string, scheme: string, problem: string) {
  const message = `${problem}, so it was not resolved; an operator must move the credential into the namespace`;
  expect(answer.status).toBe('error');
  expect(answer.error).toEqual({
    code: 'CREDENTIAL_UNAVAILABLE',
    category: 'internal',
    message: `The credential reference of ${resource} (${scheme}://…) is refused: ${message}.`,
    // found stays empty: the agent is not told which foreign path the entry names
    details: [{ path: 'spec.connection.credentialRef', message, expected: EXPECTED, found: '' }],
  });
  const event = await h.eventOf(answer.callId, EventTypes.callCompleted, 'ERROR');
  if (event.payload.case !== 'callCompleted') throw new Error('not call.completed');
  expect(event.payload.value).toMatchObject({ tool: `${resource}_search`, resource });
  expect(event.payload.value.error?.code).toBe(ErrorCode.CREDENTIAL_UNAVAILABLE);
  expect(event.payload.value.error?.message).toBe(answer.error?.message);
}

const OUTSIDE = 'it is outside the credential namespace of team-a/prod';

describe('credential namespaces - executor', () => {
  it("credential namespaces - a reference inside the tenant's namespace is resolved and used", async () => {
    const answer = await h.call('orders_own_search', byId);
    expect(answer.status).toBe('ok');
    expect(reads).toContain(OWN_VAR);
    expect(proxy.requests.map((r) => r.authorization)).toContain(`ApiKey ${OWN_SECRET}`);
  });

  it("credential namespaces - another tenant's env:// and vault:// references, another environment's and a malformed one are refused before anything is resolved; Elasticsearch receives nothing", async () => {
    const seen = proxy.requests.length;
    reads.length = 0;
    await expectRefused(
      await h.call('orders_foreign_env_search', byId),
      'orders_foreign_env',
      'env',
      OUTSIDE,
    );
    await expectRefused(
      await h.call('orders_foreign_vault_search', byId),
      'orders_foreign_vault',
      'vault',
      OUTSIDE,
    );
    await expectRefused(
      await h.call('orders_staging_search', byId),
      'orders_staging',
      'vault',
      OUTSIDE,
    );
    await expectRefused(
      await h.call('orders_dot_search', byId),
      'orders_dot',
      'file',
      'it is malformed: it has a path segment made of dots (. or ..)',
    );
    expect(reads).toEqual([]);
    expect(vaultRequests).toBe(0);
    expect(proxy.requests.length).toBe(seen);
  });

  it('credential namespaces - an entry rewritten in KV to a foreign reference is refused on the next call', async () => {
    expect((await h.call('orders_own_search', byId)).status).toBe('ok');
    const seen = proxy.requests.length;
    reads.length = 0;
    const tampered = ordersResource({
      name: 'orders_own',
      endpoint: proxy.url,
      index: ORDERS_INDEX,
      credentialRef: `env://${FOREIGN_VAR}`,
    });
    await h.publishResource(tampered, 2);
    const refused = await eventually(async () => {
      const answer = await h.call('orders_own_search', byId);
      return answer.status === 'error' ? answer : undefined;
    }, 5_000);
    await expectRefused(refused, 'orders_own', 'env', OUTSIDE);
    expect(refused.meta?.resourceVersion).toBe(2);
    expect(reads).not.toContain(FOREIGN_VAR);
    expect(proxy.requests.length).toBe(seen);
  });

  it('credential namespaces - no canary appears in logs, replies or events', () => {
    const haystack = [h.logs.join('\n'), ...h.eventBytes.map((b) => Buffer.from(b).toString())];
    for (const canary of [OWN_SECRET, FOREIGN_SECRET, VAULT_TOKEN]) {
      for (const text of haystack) expect(text).not.toContain(canary);
    }
    expect(h.logs.join('\n')).toContain(
      'credential reference outside the namespace of the tenant and environment: refused before resolving',
    );
  });
});
