import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, RpcStatus } from '@tollgate/contracts';
import { createConnectorRegistry, parseEgressRules } from '@tollgate/core';
import { resourceConnectors } from '@tollgate/kinds';
import type { Principal } from '@tollgate/core';
import { startEsProxy } from '../../../test/security/support/es-proxy.js';
import type { EsProxy } from '../../../test/security/support/es-proxy.js';
import { COLLECTIONS } from '../src/index.js';
import { infra, resourceDescriptor, startHarness, uniqueName, uniqueTenant } from './harness.js';
import type { Harness } from './harness.js';

/**
 * Egress rules at the registry: a descriptor whose endpoint is outside its tenant's and
 * environment's rules is refused at apply, draft and discover with an error naming the
 * endpoint, before anything is stored or any connection is made — the registry is no port
 * scanner: a listening port and a closed one read the same, and nothing reaches either.
 */
const PORT = Number(process.env.TG_EGRESS_TEST_PORT ?? 29120) + 2;
const tenant = uniqueTenant();
const index = uniqueName('reg_egress');

let h: Harness;
let listed: EsProxy;
let unlisted: EsProxy;

beforeAll(async () => {
  const res = await fetch(`${infra.esUrl}/${index}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mappings: { properties: { id: { type: 'keyword' } } } }),
  });
  if (!res.ok) throw new Error(`index: HTTP ${res.status}`);
  listed = await startEsProxy(infra.esUrl, PORT);
  unlisted = await startEsProxy(infra.esUrl, PORT + 1);
  h = await startHarness({
    egressRules: parseEgressRules(`${tenant}/prod=public,127.0.0.1:${PORT}`),
    // Every kind, so an mcp upstream's token endpoint is checked like any endpoint.
    connectors: createConnectorRegistry(resourceConnectors),
  });
});
afterAll(async () => {
  await h?.close();
  await listed?.close();
  await unlisted?.close();
  await fetch(`${infra.esUrl}/${index}`, { method: 'DELETE' });
});

const operator = (environment = 'prod'): Principal => ({ tenant, agent: 'operator', environment });
const at = (endpoint: string, environment = 'prod') =>
  resourceDescriptor(tenant, 'es_orders', { endpoint, index, environment });

async function failure(call: Promise<unknown>): Promise<RpcError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

async function stored(): Promise<number> {
  const db = h.mongo.db;
  const counts = await Promise.all(
    [COLLECTIONS.versions, 'resource_drafts'].map((c) =>
      db.collection(c).countDocuments({ tenant }),
    ),
  );
  return counts.reduce((a, b) => a + b, 0);
}

const refusal = (url: string, problem: string, expected = `public or 127.0.0.1:${PORT}`) =>
  `spec.connection.endpoint: ${JSON.stringify(url)} is refused: ${problem}; expected a destination among ${expected}.`;

describe('egress - registry', () => {
  it('egress - the listed destination is discovered and applied', async () => {
    const as = await h.as(operator());
    const proposal = await h.client.discover({ descriptor: at(listed.url) }, as);
    expect(proposal.descriptor).toBeDefined();
    expect(listed.requests.some((r) => r.path.includes(index))).toBe(true);
    const applied = await h.client.apply({ descriptor: at(listed.url), dryRun: true }, as);
    expect(applied.resource?.version).toBe(1);
    expect(applied.diff.length).toBeGreaterThan(0);
  });

  it.each([
    [
      "a listening port that is not listed (FerretDB's debug port, in the original report)",
      () => unlisted.url,
      'it is a loopback address, which the egress rules of TENANT/prod do not list',
    ],
    [
      'a closed port',
      () => 'http://127.0.0.1:1',
      'it is a loopback address, which the egress rules of TENANT/prod do not list',
    ],
    [
      'cloud metadata',
      () => 'http://169.254.169.254',
      'it is a link-local address, which the egress rules of TENANT/prod do not list',
    ],
    [
      'cloud metadata, IPv4-mapped',
      () => 'http://[::ffff:169.254.169.254]',
      'it is a link-local address, which the egress rules of TENANT/prod do not list',
    ],
    [
      'loopback, IPv4-mapped',
      () => `http://[::ffff:127.0.0.1]:${PORT + 1}`,
      'it is a loopback address, which the egress rules of TENANT/prod do not list',
    ],
    [
      'a private address',
      () => 'http://192.168.1.10:9200',
      'it is a private address, which the egress rules of TENANT/prod do not list',
    ],
    [
      'a name resolving to loopback',
      () => `http://localhost:${PORT + 1}`,
      'its host does not resolve to addresses the egress rules of TENANT/prod allow',
    ],
    [
      'a name that does not resolve',
      () => 'http://es.invalid:9200',
      'its host does not resolve to addresses the egress rules of TENANT/prod allow',
    ],
  ])(
    'egress - %s is refused at apply, draft and discover; nothing is stored or sent',
    async (_what, url, problem) => {
      const as = await h.as(operator());
      const message = refusal(url(), problem.replace('TENANT', tenant));
      const calls = [
        () => h.client.apply({ descriptor: at(url()) }, as),
        () => h.client.apply({ descriptor: at(url()), dryRun: true }, as),
        () => h.client.discover({ descriptor: at(url()) }, as),
        () => h.client.draft({ descriptor: at(url()), sessionId: 's-1' }, as),
      ];
      for (const call of calls) {
        const err = await failure(call());
        expect(err.code).toBe(RpcStatus.INVALID_ARGUMENT);
        expect(err.message).toBe(message);
        expect(err.details).toEqual([
          {
            path: 'spec.connection.endpoint',
            message: message.slice('spec.connection.endpoint: '.length, -1),
            expected: `a destination among public or 127.0.0.1:${PORT}`,
            found: url(),
          },
        ]);
      }
      expect(unlisted.requests).toEqual([]);
      expect(await stored()).toBe(0);
    },
  );

  it('egress - an upstream whose OAuth token endpoint is outside the rules is refused before anything connects', async () => {
    const as = await h.as(operator());
    const tokenUrl = 'http://169.254.169.254/latest/token';
    const descriptor = {
      apiVersion: 'tollgate.dev/v1',
      kind: 'Resource',
      metadata: { name: 'mcp_tickets', tenant, environment: 'prod' },
      spec: {
        type: 'mcp',
        connection: {
          url: `${listed.url}/mcp`,
          oauth: {
            tokenUrl,
            clientId: 'gateway',
            clientSecretRef: 'env://TG_EGRESS_CLIENT_SECRET',
          },
        },
        tools: { whoami: { class: 'read' } },
        schema: { fields: {} },
        access: { allowedRoles: ['support'], readonly: true },
      },
    };
    const before = listed.requests.length;
    for (const call of [
      () => h.client.apply({ descriptor }, as),
      () => h.client.apply({ descriptor, dryRun: true }, as),
      () => h.client.discover({ descriptor }, as),
    ]) {
      const err = await failure(call());
      expect(err.code).toBe(RpcStatus.INVALID_ARGUMENT);
      expect(err.message).toBe(
        `spec.connection.oauth.tokenUrl: ${JSON.stringify(tokenUrl)} is refused: it is a link-local address, which the egress rules of ${tenant}/prod do not list; expected a destination among public or 127.0.0.1:${PORT}.`,
      );
    }
    // Neither the upstream (a listed destination) nor anything else was contacted.
    expect(listed.requests.length).toBe(before);
    expect(await stored()).toBe(0);
  });

  it("egress - another environment's rules are its own: none listed there, the loopback port is refused", async () => {
    const as = await h.as(operator('staging'));
    const err = await failure(h.client.apply({ descriptor: at(listed.url, 'staging') }, as));
    expect(err.message).toBe(
      refusal(
        listed.url,
        `it is a loopback address, which the egress rules of ${tenant}/staging do not list`,
        'none: no egress rule applies to this tenant and environment',
      ),
    );
  });
});
