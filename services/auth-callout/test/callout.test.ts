import { readFileSync } from 'node:fs';
import { Algorithms, createAccount, createServer, createUser, decode, encode } from '@nats-io/jwt';
import type { AuthorizationResponse, KeyPair, User } from '@nats-io/jwt';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  EVENTS_TOKEN_AUDIENCE,
  TokenVerifier,
  agentInboxPrefix,
  generateIssuerKeys,
  issuePrincipalToken,
} from '@tollgate/core';
import type { IssuerKeys } from '@tollgate/core';
import { AGENT_PUBLISH, authorize } from '../src/index.js';
import type { CalloutDeps } from '../src/index.js';

let keys: IssuerKeys;
let deps: CalloutDeps;
const issuer = createAccount();
const server = createServer();
const principal = { tenant: 'team-a', agent: 'support_bot', environment: 'prod' };

beforeAll(async () => {
  keys = await generateIssuerKeys('callout-test');
  deps = {
    verifier: await TokenVerifier.create([{ issuer: keys.issuer, keys: [keys.publicJwk] }]),
    issuer,
    account: 'TOLLGATE',
    maxTtlSeconds: 3_600,
  };
});

/** An authorization request as nats-server sends it, signed by `signer`. */
async function request(
  token: string | undefined,
  user: KeyPair = createUser(),
  signer: KeyPair = server,
): Promise<{ bytes: Uint8Array; user: KeyPair }> {
  const jwt = await encode(
    Algorithms.v2,
    {
      jti: 'x',
      iat: Math.floor(Date.now() / 1000),
      iss: '',
      sub: issuer.getPublicKey(),
      aud: 'nats-authorization-request',
      name: '',
      nats: {
        server_id: { id: server.getPublicKey(), name: 'test', host: '127.0.0.1' },
        user_nkey: user.getPublicKey(),
        client_info: { host: '127.0.0.1', id: 1 },
        connect_opts: { protocol: 1, ...(token === undefined ? {} : { auth_token: token }) },
        type: 'authorization_request',
        version: 2,
      },
    },
    signer,
  );
  return { bytes: new TextEncoder().encode(jwt), user };
}

function readResponse(jwt: string) {
  const response = decode<AuthorizationResponse>(jwt);
  expect(response.iss).toBe(issuer.getPublicKey());
  expect(response.aud).toBe(server.getPublicKey());
  return response;
}

describe('callout - who gets onto the bus, with what', () => {
  it('callout - an agent token yields a user limited to calls out and its own inbox in', async () => {
    const token = await issuePrincipalToken(keys, principal, { ttlSeconds: 600 });
    const { bytes, user } = await request(token);
    const decision = await authorize(bytes, deps);
    expect(decision).toMatchObject({ role: 'agent', principal: { agent: 'support_bot' } });
    const response = readResponse(decision.response!);
    expect(response.sub).toBe(user.getPublicKey());
    const issued = decode<User>(response.nats.jwt!);
    expect(issued.sub).toBe(user.getPublicKey());
    expect(issued.aud).toBe('TOLLGATE');
    expect(issued.nats.pub).toEqual({ allow: [...AGENT_PUBLISH] });
    expect(issued.nats.sub).toEqual({ allow: [`${agentInboxPrefix(principal)}.>`] });
    // No longer than the token.
    const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp;
    expect(issued.exp).toBe(exp);
    expect(JSON.stringify(issued)).not.toContain('$JS');
  });

  it('callout - a subscriber token yields read-only access to its tenant’s completions', async () => {
    const token = await issuePrincipalToken(
      keys,
      { ...principal, agent: 'ticket_router' },
      { audience: EVENTS_TOKEN_AUDIENCE },
    );
    const decision = await authorize((await request(token)).bytes, deps);
    expect(decision.role).toBe('subscriber');
    const issued = decode<User>(readResponse(decision.response!).nats.jwt!);
    expect(issued.nats.pub).toEqual({ deny: ['>'] });
    expect(issued.nats.sub).toEqual({ allow: ['tollgate.v1.evt.call.completed.team-a'] });
  });

  it('callout - a user never outlives the longest allowed life, whatever its token says', async () => {
    const token = await issuePrincipalToken(keys, principal, { ttlSeconds: 30 * 86_400 });
    const decision = await authorize((await request(token)).bytes, deps);
    const issued = decode<User>(readResponse(decision.response!).nats.jwt!);
    expect(issued.exp! - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(3_600);
  });

  it.each([
    ['no token', undefined, 'no Tollgate token was presented'],
    ['not a JWT', 'hello', 'malformed'],
  ])('callout - %s is refused with a reason', async (_name, token, reason) => {
    const decision = await authorize((await request(token)).bytes, deps);
    expect(decision.principal).toBeUndefined();
    const response = readResponse(decision.response!);
    expect(response.nats.jwt).toBeUndefined();
    expect(response.nats.error).toContain(reason);
  });

  it('callout - expired tokens and tokens for another audience are refused', async () => {
    const expired = await issuePrincipalToken(keys, principal, { ttlSeconds: -10 });
    const other = await issuePrincipalToken(keys, principal, { audience: 'someone-else' });
    for (const [token, reason] of [
      [expired, 'expired'],
      [other, '"aud" claim'],
    ] as const) {
      const decision = await authorize((await request(token)).bytes, deps);
      expect(readResponse(decision.response!).nats.error).toContain(reason);
      expect(decision.response).not.toContain(token);
    }
  });

  it('callout - a token of a key it does not know is left to another callout', async () => {
    const stranger = await generateIssuerKeys('elsewhere');
    const token = await issuePrincipalToken(stranger, principal);
    const decision = await authorize((await request(token)).bytes, deps);
    expect(decision.response).toBeUndefined();
  });

  it('callout - a request not signed by the server it names is not answered', async () => {
    const token = await issuePrincipalToken(keys, principal);
    await expect(
      authorize((await request(token, createUser(), createServer())).bytes, deps),
    ).rejects.toThrow('another server');
    await expect(authorize(new TextEncoder().encode('garbage'), deps)).rejects.toThrow(
      'not an authorization request',
    );
  });
});

describe('callout - the deployments agree', () => {
  const root = new URL('../../../', import.meta.url);
  it('callout - docker-compose runs the nats-server version deploy/local builds', () => {
    const version = readFileSync(new URL('deploy/nats/version', root), 'utf8').trim();
    const compose = readFileSync(new URL('docker-compose.yml', root), 'utf8');
    expect(compose).toContain(`image: nats:${version.replace(/^v/, '')}-alpine`);
  });

  it('callout - the server config lets agents publish exactly what the callout grants', () => {
    const conf = readFileSync(new URL('deploy/nats/tollgate.conf', root), 'utf8');
    const mcp = conf.slice(conf.indexOf('MCP: {'), conf.indexOf('accounts: {'));
    for (const subject of AGENT_PUBLISH) expect(mcp).toContain(`"${subject}"`);
    // Services read replies on their own inbox prefixes only; nobody but admin gets `_INBOX.>`.
    expect(conf).not.toContain('"_INBOX.>"');
  });
});
