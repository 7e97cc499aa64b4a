/**
 * Hostile MCP requests: bad, expired, foreign and other-tenant tokens, tools never offered,
 * arguments outside the schema, a 10 MB body, DNS-rebinding Origin and Host headers, forged
 * sessions. Every one is refused and nothing reaches Elasticsearch (a counting proxy sits in
 * front of it). Also: the caller's address reaches policy, so an IP-restricted grant allows
 * through MCP but never over NATS, where no address is known.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, generateKeyPair, importJWK } from 'jose';
import { compileBundle } from '@tollgate/policy';
import { ordersAgents, ordersPolicy, ordersResource } from '../fixtures/orders.js';
import { CLIENTS } from './support/oidc.js';
import { connectClient } from './support/clients.js';
import type { McpClient } from './support/clients.js';
import { startMcpStack } from './support/stack.js';
import type { McpStack } from './support/stack.js';
import { operationsOf } from '@tollgate/kinds';

let s: McpStack;
let supportToken: string;

beforeAll(async () => {
  s = await startMcpStack({ maxBodyBytes: 1_048_576 });
  supportToken = await s.as.clientToken(CLIENTS.support, s.url.href);
  // intern_bot may search only from loopback addresses.
  const descriptor = ordersResource({ endpoint: s.proxy.url, index: s.index, readonly: false });
  const compiled = compileBundle({
    tenant: 'team-a',
    version: 2,
    agents: ordersAgents('team-a'),
    policies: [
      ordersPolicy({ tenant: 'team-a' }),
      {
        apiVersion: 'tollgate.dev/v1',
        kind: 'Policy',
        metadata: { name: 'intern-from-loopback', tenant: 'team-a' },
        spec: {
          grants: [
            {
              effect: 'allow',
              principals: { agents: ['intern_bot'] },
              actions: ['es_orders.search'],
              conditions: { ipCidr: ['127.0.0.0/8'] },
            },
          ],
        },
      },
    ],
    resources: [{ descriptor, version: 1, operations: operationsOf(descriptor) }],
  });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  await s.h.bundlesKv.put('team-a', JSON.stringify(compiled.bundle));
  // team-b exists, with agents of its own and no resources.
  const other = compileBundle({
    tenant: 'team-b',
    version: 1,
    agents: ordersAgents('team-b'),
    policies: [],
    resources: [],
  });
  if (!other.ok) throw new Error(JSON.stringify(other.problems));
  await s.h.bundlesKv.put('team-b', JSON.stringify(other.bundle));
});
afterAll(async () => {
  await s?.stop();
});

const CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'es_orders_search',
    arguments: { filters: [{ field: 'id', op: 'eq', value: '12345' }] },
  },
};

/** A raw 2025-06-18 POST, headers as given (a browser, a curl, an attacker). */
async function post(
  headers: Record<string, string>,
  body: string = JSON.stringify(CALL),
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      s.url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      // The server may close a too-large upload before reading it all.
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
    );
    req.end(body);
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function expiredAgentToken(): Promise<string> {
  const key = await importJWK(s.h.keys.privateJwk, 'EdDSA');
  return new SignJWT({ tenant: 'team-a', env: 'prod' })
    .setProtectedHeader({ alg: 'EdDSA', kid: s.h.keys.kid })
    .setIssuer(s.h.keys.issuer)
    .setAudience('tollgate')
    .setSubject('support_bot')
    .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
    .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
    .sign(key);
}

async function forgedOAuthToken(): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  await exportJWK(privateKey);
  return new SignJWT({ client_id: CLIENTS.support.clientId, scope: 'tollgate:tools' })
    .setProtectedHeader({ alg: 'ES256', kid: 'as-key-1' })
    .setIssuer(s.as.issuer)
    .setAudience(s.url.href)
    .setSubject(CLIENTS.support.clientId)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
}

interface HttpCase {
  name: string;
  headers: () => Promise<Record<string, string>>;
  body?: () => string;
  status: number;
  /** Checked on the WWW-Authenticate header when given. */
  challenge?: RegExp;
}

const HTTP_CASES: HttpCase[] = [
  {
    name: 'no token',
    headers: async () => ({}),
    status: 401,
    challenge: /resource_metadata="[^"]+oauth-protected-resource\/mcp"/,
  },
  {
    name: 'a bearer value that is not a JWT',
    headers: async () => bearer('not-a-jwt'),
    status: 401,
    challenge: /invalid_token/,
  },
  {
    name: 'an expired Tollgate agent token',
    headers: async () => bearer(await expiredAgentToken()),
    status: 401,
    challenge: /expired/,
  },
  {
    name: 'a forged access token (unknown key under the server key id)',
    headers: async () => bearer(await forgedOAuthToken()),
    status: 401,
    challenge: /invalid_token/,
  },
  {
    name: 'a token for another resource (audience)',
    headers: async () =>
      bearer(await s.as.clientToken(CLIENTS.support, 'http://127.0.0.1:23999/elsewhere')),
    status: 401,
    challenge: /another resource/,
  },
  {
    name: 'a token no principal rule maps',
    headers: async () => bearer(await s.as.clientToken(CLIENTS.unmapped, s.url.href)),
    status: 401,
    challenge: /no principal rule/,
  },
  {
    name: 'a token without the required scope',
    headers: async () => bearer(await s.as.clientToken(CLIENTS.support, s.url.href, 'other:scope')),
    status: 403,
    challenge: /insufficient_scope.*scope="tollgate:tools"/,
  },
  {
    name: 'a rebinding Origin',
    headers: async () => ({ ...bearer(supportToken), origin: 'http://attacker.example' }),
    status: 403,
  },
  {
    name: 'the null Origin',
    headers: async () => ({ ...bearer(supportToken), origin: 'null' }),
    status: 403,
  },
  {
    name: 'a rebinding Host',
    headers: async () => ({ ...bearer(supportToken), host: 'attacker.example' }),
    status: 403,
  },
  {
    name: 'a session id minted for another principal',
    headers: async () => ({
      ...bearer(supportToken),
      'mcp-session-id': `mcp-${'0'.repeat(32)}.${'1'.repeat(32)}`,
    }),
    status: 404,
  },
  {
    name: 'a __proto__ key in the arguments',
    headers: async () => bearer(supportToken),
    body: () => JSON.stringify(CALL).replace('"filters"', '"__proto__":{"admin":true},"filters"'),
    status: 400,
  },
  {
    name: 'a 10 MB body',
    headers: async () => bearer(supportToken),
    body: () =>
      JSON.stringify({
        ...CALL,
        params: { ...CALL.params, arguments: { pad: 'x'.repeat(10 * 1024 * 1024) } },
      }),
    status: 413,
  },
];

describe('mcp hostile - refused at the edge, nothing reaches Elasticsearch', () => {
  it.each(HTTP_CASES)('mcp hostile - $name', async (c) => {
    const before = s.proxy.requests.length;
    const res = await post(await c.headers(), c.body?.());
    expect(res.status).toBe(c.status);
    if (c.challenge) expect(String(res.headers['www-authenticate'] ?? '')).toMatch(c.challenge);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(s.proxy.requests.length).toBe(before);
  });

  it('mcp hostile - protected resource metadata names the authorization server and scopes', async () => {
    const res = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', s.url));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      resource: s.url.href,
      authorization_servers: [s.as.issuer],
      scopes_supported: ['tollgate:tools'],
      bearer_methods_supported: ['header'],
      resource_name: 'Tollgate',
    });
  });

  it('mcp hostile - no CORS unless configured: a preflight is refused', async () => {
    const res = await fetch(s.url, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

interface ToolCase {
  name: string;
  token: () => Promise<string>;
  tool: string;
  args: Record<string, unknown>;
  code: string;
  path?: string;
}

const TOOL_CASES: ToolCase[] = [
  {
    name: 'a tool never offered to support (write)',
    token: async () => supportToken,
    tool: 'es_orders_write',
    args: { id: '1', document: { status: 'x' } },
    code: 'UNKNOWN_TOOL',
  },
  {
    name: 'a tool that does not exist',
    token: async () => supportToken,
    tool: 'es_orders_delete_all',
    args: {},
    code: 'UNKNOWN_TOOL',
  },
  {
    name: "another tenant's principal calling this tenant's tool",
    token: () => s.as.clientToken(CLIENTS.otherTenant, s.url.href),
    tool: 'es_orders_search',
    args: CALL.params.arguments,
    code: 'UNKNOWN_TOOL',
  },
  {
    name: 'a filter on internal_note',
    token: async () => supportToken,
    tool: 'es_orders_search',
    args: { filters: [{ field: 'internal_note', op: 'match', value: 'x' }] },
    code: 'ARGUMENTS_INVALID',
    path: 'filters[0].field',
  },
  {
    name: 'raw query DSL',
    token: async () => supportToken,
    tool: 'es_orders_search',
    args: { query: { match_all: {} } },
    code: 'ARGUMENTS_INVALID',
    path: 'query',
  },
  {
    name: 'a script',
    token: async () => supportToken,
    tool: 'es_orders_search',
    args: { script: { source: 'ctx._source.amount = 0' } },
    code: 'ARGUMENTS_INVALID',
    path: 'script',
  },
  {
    name: 'limit 1e9',
    token: async () => supportToken,
    tool: 'es_orders_search',
    args: { limit: 1e9 },
    code: 'ARGUMENTS_INVALID',
    path: 'limit',
  },
  {
    name: 'call status of a made-up call',
    token: async () => supportToken,
    tool: 'tollgate_call_status',
    args: { call_id: 'does-not-exist' },
    code: 'NOT_FOUND',
  },
  {
    name: 'call status with an injected id',
    token: async () => supportToken,
    tool: 'tollgate_call_status',
    args: { call_id: '../../x' },
    code: 'ARGUMENTS_INVALID',
  },
];

describe('mcp hostile - tool calls refused as isError results, nothing reaches Elasticsearch', () => {
  const clients = new Map<string, McpClient>();
  afterAll(async () => {
    for (const c of clients.values()) await c.close();
  });

  it.each(TOOL_CASES)('mcp hostile - $name', async (c) => {
    const token = await c.token();
    let client = clients.get(token);
    if (!client) {
      client = await connectClient('v2-legacy', s.url, token);
      clients.set(token, client);
    }
    const before = s.proxy.requests.length;
    const result = await client.callTool(c.tool, c.args);
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(new RegExp(`^${c.code} `));
    if (c.path) expect(result.content[0]!.text).toContain(`- ${c.path}:`);
    expect(s.proxy.requests.length).toBe(before);
  });
});

describe('mcp hostile - the caller address reaches policy', () => {
  it('mcp hostile - an IP-restricted grant allows through MCP (loopback caller) but not over NATS', async () => {
    const token = await s.agentToken('intern_bot');
    const client = await connectClient('v2-legacy', s.url, token);
    try {
      const viaMcp = await client.callTool('es_orders_search', CALL.params.arguments);
      expect(viaMcp.isError ?? false).toBe(false);
      expect(viaMcp.structuredContent).toMatchObject({ status: 'ok' });
    } finally {
      await client.close();
    }
    const viaNats = await s.h.call('es_orders_search', CALL.params.arguments, {
      agent: 'intern_bot',
    });
    expect(viaNats.status).toBe('error');
    expect(viaNats.error?.category).toBe('denied');
  });

  it('mcp hostile - an ip claim signed by anyone but a trusted issuer is refused', async () => {
    // An agent over NATS with an ip claim it signed itself (an untrusted key) is refused.
    const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    const forged = await new SignJWT({ tenant: 'team-a', env: 'prod', ip: '127.0.0.1' })
      .setProtectedHeader({ alg: 'EdDSA', kid: s.h.keys.kid })
      .setIssuer(s.h.keys.issuer)
      .setAudience('tollgate')
      .setSubject('intern_bot')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    const before = s.proxy.requests.length;
    const answer = await s.h.call('es_orders_search', CALL.params.arguments, { token: forged });
    expect(answer.error?.code).toBe('UNAUTHENTICATED');
    expect(s.proxy.requests.length).toBe(before);
  });
});
