/**
 * A URL upstream behind OAuth: a real authorization server (`oidc-provider`) and an MCP server
 * that verifies every request's JWT. Tollgate signs in with client credentials against the
 * token endpoint the resource declares, reuses the token, takes a new one when the upstream
 * says 401, and says a refused client as such — the client secret only ever goes to the token
 * endpoint, and appears in no error. A static bearer (`credentialRef`) reaches the same server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTollgateError, validateDescriptor } from '@tollgate/core';
import type { CredentialResolver, ResourceDescriptor, VersionedResource } from '@tollgate/core';
import {
  CLIENTS,
  TOOLS_SCOPE,
  startAuthorizationServer,
} from '../../../../test/mcp/support/oidc.js';
import type { AuthorizationServer } from '../../../../test/mcp/support/oidc.js';
import { discoverTools, mcpConnector, mcpSessions, pinTools } from '../src/index.js';
import type { McpConnection, McpSpec } from '../src/index.js';
import { kinds, permissionsOf, validated } from './support.js';
import { startProtectedUpstream } from './upstreams/protected.js';
import type { ProtectedUpstream } from './upstreams/protected.js';

let as: AuthorizationServer;
let upstream: ProtectedUpstream;
const WRONG_SECRET = 'wrong-secret-4242424242';

const secrets: Record<string, string> = {
  'env://GATEWAY_SECRET': CLIENTS.basic.secret,
  'env://SUPPORT_SECRET': CLIENTS.support.secret,
  'env://WRONG_SECRET': WRONG_SECRET,
};
let staticToken = '';
const credentials: CredentialResolver = async (ref) => {
  if (ref === 'env://STATIC_TOKEN') return { kind: 'bearer', token: staticToken };
  const secret = secrets[ref];
  if (secret === undefined) throw new Error(`no credential ${ref}`);
  return { kind: 'apiKey', apiKey: secret };
};

beforeAll(async () => {
  as = await startAuthorizationServer();
  upstream = await startProtectedUpstream({
    issuer: as.issuer,
    jwksUri: as.jwksUri,
    scope: TOOLS_SCOPE,
  });
}, 30_000);
afterAll(async () => {
  await mcpSessions.close();
  await upstream?.close();
  await as?.close();
});

function resource(name: string, connection: McpConnection): ResourceDescriptor<McpSpec> {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name, tenant: 'team-a', environment: 'test', description: 'Protected upstream.' },
    spec: {
      type: 'mcp',
      connection,
      tools: { whoami: { class: 'read' } },
      schema: { fields: {} },
      access: { allowedRoles: ['support'], readonly: true },
    },
  };
}

function oauth(clientId: string, clientSecretRef: string, basic = true): McpConnection['oauth'] {
  return {
    tokenUrl: `${as.issuer}/token`,
    clientId,
    clientSecretRef,
    scope: TOOLS_SCOPE,
    ...(basic ? {} : { clientAuth: 'client_secret_post' as const }),
  };
}

async function confirmed(descriptor: ResourceDescriptor<McpSpec>): Promise<VersionedResource> {
  const discovered = await discoverTools(descriptor.spec, credentials);
  return validated({ ...descriptor, spec: pinTools(descriptor.spec, discovered) });
}

async function whoami(resource: VersionedResource): Promise<string> {
  const permissions = permissionsOf(resource);
  const request = mcpConnector.compile(
    'whoami',
    {},
    {
      descriptor: resource,
      permissions,
      principal: { tenant: 'team-a', agent: 'agent-1' },
    },
  );
  const upstreamResult = await mcpConnector.execute(request, {
    descriptor: resource,
    credentials,
    backoffMs: 10,
  });
  const shaped = mcpConnector.shape('whoami', upstreamResult, {
    descriptor: resource,
    permissions,
    request,
  });
  return JSON.stringify(shaped.data);
}

async function refusal(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call;
  } catch (err) {
    if (isTollgateError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('mcp kind over an OAuth-protected URL upstream', () => {
  it('oauth - client credentials by HTTP Basic: discovered, pinned and called as that client, one token for many calls', async () => {
    const before = upstream.accepted.size;
    const pinned = await confirmed(
      resource('protected', {
        url: upstream.url,
        oauth: oauth(CLIENTS.basic.clientId, 'env://GATEWAY_SECRET'),
      }),
    );
    expect(Object.keys((pinned.spec as unknown as McpSpec).tools)).toEqual(['whoami']);
    for (let i = 0; i < 3; i++)
      expect(await whoami(pinned)).toContain(`client ${CLIENTS.basic.clientId}`);
    // Discovery and three calls: one token, taken once and reused.
    expect(upstream.accepted.size - before).toBe(1);
    expect(upstream.authorizations.join('\n')).not.toContain(CLIENTS.basic.secret);
  });

  it('oauth - client_secret_post works too; each client gets its own token', async () => {
    const pinned = await confirmed(
      resource('protected_post', {
        url: upstream.url,
        oauth: oauth(CLIENTS.support.clientId, 'env://SUPPORT_SECRET', false),
      }),
    );
    expect(await whoami(pinned)).toContain(`client ${CLIENTS.support.clientId}`);
    expect(upstream.authorizations.join('\n')).not.toContain(CLIENTS.support.secret);
  });

  it('oauth - a token the upstream stops accepting is replaced once, and the call goes through', async () => {
    const pinned = await confirmed(
      resource('protected', {
        url: upstream.url,
        oauth: oauth(CLIENTS.basic.clientId, 'env://GATEWAY_SECRET'),
      }),
    );
    await whoami(pinned);
    const seen = upstream.accepted.size;
    upstream.revokeSeen();
    expect(await whoami(pinned)).toContain(`client ${CLIENTS.basic.clientId}`);
    expect(upstream.accepted.size).toBe(seen + 1);
  });

  it("oauth - a refused client is CREDENTIAL_UNAVAILABLE with the endpoint's code, no secret, nothing sent upstream", async () => {
    const sent = upstream.authorizations.length;
    const failed = await refusal(
      discoverTools(
        resource('wrong_secret', {
          url: upstream.url,
          oauth: oauth(CLIENTS.basic.clientId, 'env://WRONG_SECRET'),
        }).spec,
        credentials,
      ),
    );
    expect(failed.code).toBe('CREDENTIAL_UNAVAILABLE');
    expect(failed.message).toContain('refused the client (HTTP 401, invalid_client)');
    expect(failed.message).not.toContain(WRONG_SECRET);
    expect(upstream.authorizations.length).toBe(sent);
  });

  it('oauth - an unreachable token endpoint is UPSTREAM_UNAVAILABLE, and nothing is sent upstream', async () => {
    const sent = upstream.authorizations.length;
    const spec = resource('no_as', {
      url: upstream.url,
      oauth: {
        ...oauth(CLIENTS.basic.clientId, 'env://GATEWAY_SECRET')!,
        tokenUrl: 'http://127.0.0.1:9/token',
      },
    }).spec;
    const failed = await refusal(discoverTools(spec, credentials));
    expect(failed).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(failed.message).toMatch(/^The token endpoint of .* could not be reached\.$/);
    expect(upstream.authorizations.length).toBe(sent);
  });

  it('oauth - a static bearer from credentialRef reaches the same server; without a valid one it is refused', async () => {
    staticToken = await as.clientToken(CLIENTS.clerk, upstream.url);
    const pinned = await confirmed(
      resource('static_bearer', { url: upstream.url, credentialRef: 'env://STATIC_TOKEN' }),
    );
    expect(await whoami(pinned)).toContain(`client ${CLIENTS.clerk.clientId}`);
    staticToken = 'not-a-token';
    const failed = await refusal(
      discoverTools(
        resource('static_bad', { url: upstream.url, credentialRef: 'env://STATIC_TOKEN' }).spec,
        credentials,
      ),
    );
    expect(failed.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(failed.message).not.toContain('not-a-token');
  });

  it('oauth - the descriptor: oauth needs a url and excludes credentialRef; the token endpoint and secret are checked', () => {
    const problems = (connection: unknown) => {
      const result = validateDescriptor(resource('bad', connection as McpConnection), kinds);
      return result.ok ? [] : result.problems.map((p) => p.path);
    };
    expect(
      problems({ command: { executable: '/bin/true' }, oauth: oauth('c', 'env://GATEWAY_SECRET') }),
    ).toContain('spec.connection.oauth');
    expect(
      problems({
        url: upstream.url,
        credentialRef: 'env://STATIC_TOKEN',
        oauth: oauth('c', 'env://GATEWAY_SECRET'),
      }),
    ).toContain('spec.connection.oauth');
    expect(
      problems({
        url: upstream.url,
        oauth: { ...oauth('c', 'env://GATEWAY_SECRET')!, tokenUrl: 'ftp://as/token' },
      }),
    ).toContain('spec.connection.oauth.tokenUrl');
    expect(
      problems({ url: upstream.url, oauth: { ...oauth('c', 'plaintext-secret')! } }),
    ).toContain('spec.connection.oauth.clientSecretRef');
    expect(problems({ url: upstream.url, oauth: oauth('c', 'env://GATEWAY_SECRET') })).toEqual([]);
    const endpoints = kinds
      .get('mcp')
      .endpoints(
        resource('ok', { url: upstream.url, oauth: oauth('c', 'env://GATEWAY_SECRET') })
          .spec as never,
      );
    expect(endpoints.map((e) => e.path)).toEqual([
      'spec.connection.url',
      'spec.connection.oauth.tokenUrl',
    ]);
  });
});
