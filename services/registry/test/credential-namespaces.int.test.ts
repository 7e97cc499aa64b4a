import type { JsonObject } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, RpcStatus } from '@tollgate/contracts';
import {
  DEFAULT_CREDENTIAL_NAMESPACES,
  UNRESTRICTED_CREDENTIAL_NAMESPACES,
  parseCredentialNamespaces,
} from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import { resourceKey } from '@tollgate/kit';
import { startEsProxy } from '../../../test/security/support/es-proxy.js';
import type { EsProxy } from '../../../test/security/support/es-proxy.js';
import { COLLECTIONS } from '../src/index.js';
import { infra, resourceDescriptor, startHarness, uniqueName, uniqueTenant } from './harness.js';
import type { Harness } from './harness.js';

/**
 * Credential namespaces at the registry, with the production default rules: a descriptor naming
 * a reference outside its tenant's and environment's namespace is refused before anything is
 * stored, projected, discovered or resolved.
 */
const tenant = `${uniqueTenant()}-a`;
/** A tenant whose name starts `tenant`'s: the classic prefix-confusion neighbour. */
const shorter = tenant.slice(0, -2);
const other = `${uniqueTenant()}-b`;
const envName = (t: string) => t.toUpperCase().replaceAll('-', '_');
const CANARY = `canary-${Math.random().toString(36).slice(2)}`;
const OWN_VAR = `TOLLGATE_${envName(tenant)}__PROD__ES`;
const FOREIGN_VAR = `TOLLGATE_${envName(other)}__PROD__ES`;
const index = uniqueName('reg_ns_orders');

/** Every environment variable the registry's resolver read. */
const reads: string[] = [];
const env = new Proxy<Record<string, string>>(
  {
    [OWN_VAR]: JSON.stringify({ username: 'elastic', password: CANARY }),
    [FOREIGN_VAR]: JSON.stringify({ username: 'elastic', password: CANARY }),
  },
  {
    get(target, key) {
      if (typeof key === 'string') reads.push(key);
      return Reflect.get(target, key) as unknown;
    },
  },
);

let h: Harness;
let proxy: EsProxy;

beforeAll(async () => {
  const res = await fetch(`${infra.esUrl}/${index}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mappings: { properties: { id: { type: 'keyword' } } } }),
  });
  if (!res.ok) throw new Error(`index: HTTP ${res.status}`);
  proxy = await startEsProxy(infra.esUrl);
  h = await startHarness({
    env,
    credentialNamespaces: parseCredentialNamespaces(DEFAULT_CREDENTIAL_NAMESPACES),
  });
});
afterAll(async () => {
  await h?.close();
  await proxy?.close();
  await fetch(`${infra.esUrl}/${index}`, { method: 'DELETE' });
});

const operator = (t: string, environment = 'prod'): Principal => ({
  tenant: t,
  agent: 'operator',
  environment,
});

function withRef(t: string, credentialRef: string, name = 'es_orders'): JsonObject {
  const descriptor = resourceDescriptor(t, name, { endpoint: proxy.url, index });
  ((descriptor['spec'] as JsonObject)['connection'] as JsonObject)['credentialRef'] = credentialRef;
  return descriptor;
}

async function failure(call: Promise<unknown>): Promise<RpcError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

/** Versions, drafts and KV entries stored for a tenant. */
async function storedFor(t: string): Promise<number> {
  const db = h.mongo.db;
  const counts = await Promise.all(
    [COLLECTIONS.versions, 'resource_drafts'].map((c) =>
      db.collection(c).countDocuments({ tenant: t }),
    ),
  );
  const keys: string[] = [];
  for await (const key of await h.parts.kv.keys(`${t}.>`)) keys.push(key);
  return counts.reduce((a, b) => a + b, 0) + keys.length;
}

const expectedFor = (t: string, environment = 'prod') =>
  `a reference starting with vault://secret/${t}/${environment}/, ` +
  `file:///etc/tollgate/credentials/${t}/${environment}/ ` +
  `or env://TOLLGATE_${envName(t)}__${environment.toUpperCase()}__`;

const refused = (ref: string, problem: string, t = tenant) =>
  `spec.connection.credentialRef: ${JSON.stringify(ref)} is refused: ${problem}; expected ${expectedFor(t)}.`;

describe('credential namespaces - registry', () => {
  it("credential namespaces - Apply refuses another tenant's reference with the exact error, dry run or not, and stores nothing", async () => {
    const as = await h.as(operator(tenant));
    const ref = `vault://secret/${other}/prod/es-orders#api_key`;
    for (const dryRun of [false, true]) {
      const err = await failure(h.client.apply({ descriptor: withRef(tenant, ref), dryRun }, as));
      expect(err.code).toBe(RpcStatus.INVALID_ARGUMENT);
      expect(err.tollgateCode).toBe('INVALID_ARGUMENT');
      expect(err.message).toBe(
        refused(ref, `it is outside the credential namespace of ${tenant}/prod`),
      );
      expect(err.details).toEqual([
        {
          path: 'spec.connection.credentialRef',
          message: `"${ref}" is refused: it is outside the credential namespace of ${tenant}/prod; expected ${expectedFor(tenant)}`,
          expected: expectedFor(tenant),
          found: ref,
        },
      ]);
    }
    expect(await storedFor(tenant)).toBe(0);
  });

  it.each([
    ['another tenant (file)', () => `file:///etc/tollgate/credentials/${other}/prod/es.json`],
    ['another tenant (env)', () => `env://${FOREIGN_VAR}`],
    ['another environment', () => `vault://secret/${tenant}/staging/es-orders`],
    ['the namespace folder itself', () => `vault://secret/${tenant}/prod`],
    ["the service's own secret", () => 'env://TOLLGATE_CURSOR_KEY'],
    ['the Vault token', () => 'env://VAULT_TOKEN'],
    ['an unscoped variable', () => 'env://ES_KEY'],
  ])('credential namespaces - Apply refuses %s', async (_case, ref) => {
    const err = await failure(
      h.client.apply({ descriptor: withRef(tenant, ref()) }, await h.as(operator(tenant))),
    );
    expect(err.code).toBe(RpcStatus.INVALID_ARGUMENT);
    expect(err.message).toBe(
      refused(ref(), `it is outside the credential namespace of ${tenant}/prod`),
    );
    expect(await storedFor(tenant)).toBe(0);
  });

  it("credential namespaces - a tenant whose name starts another's cannot reach its references", async () => {
    const as = await h.as(operator(shorter));
    for (const ref of [`vault://secret/${tenant}/prod/es`, `env://${OWN_VAR}`]) {
      const err = await failure(h.client.apply({ descriptor: withRef(shorter, ref) }, as));
      expect(err.message).toBe(
        refused(ref, `it is outside the credential namespace of ${shorter}/prod`, shorter),
      );
    }
    expect(await storedFor(shorter)).toBe(0);
  });

  it('credential namespaces - traversal out of the namespace is refused, by descriptor validation or by the namespace parse', async () => {
    const as = await h.as(operator(tenant));
    const root = `file:///etc/tollgate/credentials/${tenant}/prod`;
    const cases: Array<[string, string]> = [
      [`${root}/./es.json`, 'it is malformed: it has a path segment made of dots (. or ..)'],
      [
        `${root}/%2e%2e/%2e%2e/${other}/prod/es.json`,
        'it is malformed: it holds a percent-encoded character (%)',
      ],
      [`${root}/..\\..\\${other}\\prod\\es.json`, 'it is malformed: it holds a backslash'],
      [
        `${root}/es.json~`.replace('~', '\u00e9'),
        'it is malformed: it holds a non-ASCII character',
      ],
    ];
    for (const [ref, problem] of cases) {
      const err = await failure(h.client.apply({ descriptor: withRef(tenant, ref) }, as));
      expect(err.code).toBe(RpcStatus.INVALID_ARGUMENT);
      expect(err.message).toBe(refused(ref, problem));
    }
    const invalid = [
      `vault://secret/${tenant}/prod/../../${other}/prod/es`,
      `${root}/../../${other}/prod/es.json`,
      `${root}//es.json`,
      `vault://secret/${tenant}/prod/es#key#../../${other}`,
    ];
    for (const ref of invalid) {
      const err = await failure(h.client.apply({ descriptor: withRef(tenant, ref) }, as));
      expect(err.code).toBe(RpcStatus.INVALID_ARGUMENT);
      expect(err.message).toMatch(
        /^descriptor invalid \(1 problem\): spec\.connection\.credentialRef: expected /,
      );
    }
    expect(await storedFor(tenant)).toBe(0);
  });

  it("credential namespaces - references inside the tenant's namespace apply and are projected", async () => {
    const t = `${uniqueTenant()}-c`;
    const as = await h.as(operator(t));
    const refs = [
      `vault://secret/${t}/prod/es-orders#api_key`,
      `file:///etc/tollgate/credentials/${t}/prod/es.json`,
      `env://TOLLGATE_${envName(t)}__PROD__ES_ORDERS`,
    ];
    for (const [i, ref] of refs.entries()) {
      const name = `es_orders_${i}`;
      const applied = await h.client.apply({ descriptor: withRef(t, ref, name) }, as);
      expect(applied.resource?.version).toBe(1);
      const entry = await h.parts.kv.get(resourceKey(t, 'prod', name));
      expect(entry?.string()).toContain(JSON.stringify(ref));
    }
  });

  it('credential namespaces - Discover and Draft refuse a foreign reference before resolving it or connecting', async () => {
    const as = await h.as(operator(tenant));
    const ref = `env://${FOREIGN_VAR}`;
    reads.length = 0;
    proxy.requests.length = 0;
    const discover = await failure(h.client.discover({ descriptor: withRef(tenant, ref) }, as));
    expect(discover.code).toBe(RpcStatus.INVALID_ARGUMENT);
    expect(discover.message).toBe(
      refused(ref, `it is outside the credential namespace of ${tenant}/prod`),
    );
    const partial = {
      metadata: { name: 'es_orders' },
      spec: { connection: { endpoint: proxy.url, credentialRef: ref }, target: { index } },
    };
    const draft = await failure(h.client.draft({ descriptor: partial, sessionId: 's-1' }, as));
    expect(draft.message).toBe(discover.message);
    expect(reads).not.toContain(FOREIGN_VAR);
    expect(proxy.requests).toEqual([]);
    expect(await storedFor(tenant)).toBe(0);

    const own = await h.client.discover({ descriptor: withRef(tenant, `env://${OWN_VAR}`) }, as);
    expect(own.fields.map((f) => f.name)).toEqual(['id']);
    expect(reads).toContain(OWN_VAR);
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(own)).not.toContain(CANARY);
  });

  it('credential namespaces - Confirm with edits naming a foreign reference is refused; the draft stays pending', async () => {
    const t = `${uniqueTenant()}-d`;
    const as = await h.as(operator(t));
    const { draft } = await h.client.draft(
      { descriptor: { metadata: { name: 'es_orders' } }, sessionId: 's-2' },
      as,
    );
    const ref = `vault://secret/${other}/prod/es`;
    const edits = {
      spec: {
        connection: { endpoint: proxy.url, credentialRef: ref },
        target: { index },
        schema: { fields: { id: { type: 'keyword', returnable: true } } },
        access: { allowedRoles: ['support'] },
      },
    };
    const err = await failure(h.client.confirm({ draftId: draft?.id ?? '', edits }, as));
    expect(err.message).toBe(
      refused(ref, `it is outside the credential namespace of ${t}/prod`, t),
    );
    expect(await h.mongo.db.collection(COLLECTIONS.versions).countDocuments({ tenant: t })).toBe(0);
    const again = await h.client.confirm(
      {
        draftId: draft?.id ?? '',
        edits: { ...edits, spec: { ...edits.spec, connection: { endpoint: proxy.url } } },
      },
      as,
    );
    expect(again.resource?.version).toBe(1);
  });

  it('credential namespaces - after the rules tighten, Rollback to a version naming a foreign reference is refused', async () => {
    const t = `${uniqueTenant()}-e`;
    const as = await h.as(operator(t));
    const before = await h.startInstance({
      credentialNamespaces: UNRESTRICTED_CREDENTIAL_NAMESPACES,
    });
    const foreign = `vault://secret/${other}/prod/es`;
    await before.client.apply({ descriptor: withRef(t, foreign) }, as);
    const own = `vault://secret/${t}/prod/es`;
    const current = await h.client.apply({ descriptor: withRef(t, own) }, as);
    expect(current.resource?.version).toBe(2);
    const err = await failure(h.client.rollback({ name: 'es_orders', toVersion: 1 }, as));
    expect(err.code).toBe(RpcStatus.INVALID_ARGUMENT);
    expect(err.message).toBe(
      `spec.connection.credentialRef: "${foreign}" (of version 1) is refused: it is outside the credential namespace of ${t}/prod; expected ${expectedFor(t)}.`,
    );
    const latest = await h.client.get({ name: 'es_orders' }, as);
    expect(latest.resource?.version).toBe(2);
  });
});
