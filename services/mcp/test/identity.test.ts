import { describe, expect, it } from 'vitest';
import { parseIdentitySettings, principalFromClaims, scopesOf } from '../src/identity/rules.js';
import { SessionIds, tokenSession } from '../src/http/sessions.js';

const SERVER = { issuer: 'https://auth.example', jwksUri: 'https://auth.example/jwks' };

describe('identity - claim rules', () => {
  const rules = parseIdentitySettings({
    authorizationServers: [SERVER],
    scopes: ['tollgate:tools'],
    rules: [
      {
        when: { client_id: 'support-agent' },
        principal: { tenant: 'team-a', environment: 'prod', agent: 'support' },
      },
      {
        when: { scope: 'orders.ops', groups: 'ops' },
        principal: { tenant: 'team-a', environment: 'prod', agent: 'order_ops', user: '{sub}' },
      },
      {
        when: { client_id: 'tenanted' },
        principal: { tenant: '{tenant}', environment: 'prod', agent: 'support' },
      },
    ],
  }).rules;

  it('identity - the first rule whose every claim holds names the principal', () => {
    expect(principalFromClaims(rules, { client_id: 'support-agent', sub: 'x' })).toEqual({
      tenant: 'team-a',
      environment: 'prod',
      agent: 'support',
    });
    expect(
      principalFromClaims(rules, {
        scope: 'openid orders.ops',
        groups: ['staff', 'ops'],
        sub: 'alice@example.com',
      }),
    ).toEqual({
      tenant: 'team-a',
      environment: 'prod',
      agent: 'order_ops',
      user: 'alice@example.com',
    });
  });

  it('identity - no rule, a partial match or a template that gives no valid name maps to nobody', () => {
    expect(principalFromClaims(rules, { client_id: 'someone-else' })).toBeUndefined();
    expect(principalFromClaims(rules, { scope: 'orders.ops', groups: ['staff'] })).toBeUndefined();
    expect(
      principalFromClaims(rules, { scope: 'orders.opsx', groups: 'ops', sub: 'a' }),
    ).toBeUndefined();
    expect(principalFromClaims(rules, { client_id: 'tenanted', tenant: 'Team A' })).toBeUndefined();
    expect(principalFromClaims(rules, { client_id: 'tenanted' })).toBeUndefined();
    expect(principalFromClaims(rules, { client_id: 'tenanted', tenant: 'team-b' })).toMatchObject({
      tenant: 'team-b',
    });
  });

  it('identity - every problem of an identity file is reported at once, with its path', () => {
    expect(() =>
      parseIdentitySettings({
        authorizationServers: [
          { issuer: 'ftp://x', jwksUri: 'https://a/jwks', algorithms: ['HS256'], extra: 1 },
          SERVER,
        ],
        rules: [{ when: { client_id: '' }, principal: { tenant: 't' } }],
        unknown: true,
      }),
    ).toThrow(
      [
        'identity settings are invalid:',
        '  - unknown: unknown key (expected authorizationServers, scopes, rules)',
        '  - authorizationServers[0].extra: unknown key (expected issuer, jwksUri, algorithms)',
        '  - authorizationServers[0].issuer: expected an http(s) URL, found "ftp://x"',
        '  - authorizationServers[0].algorithms: only asymmetric algorithms are accepted',
        '  - rules[0].when.client_id: expected a non-empty string',
        '  - rules[0].principal.agent: expected a name or a {claim} template',
        '  - rules[0].principal.environment: expected a name or a {claim} template',
      ].join('\n'),
    );
  });

  it('identity - scopes come from scope (space-separated) or scp', () => {
    expect(scopesOf({ scope: 'a b  c' })).toEqual(['a', 'b', 'c']);
    expect(scopesOf({ scp: ['a', 1, 'b'] })).toEqual(['a', 'b']);
    expect(scopesOf({})).toEqual([]);
  });
});

describe('identity - sessions', () => {
  const alice = { tenant: 'team-a', agent: 'support', environment: 'prod', user: 'alice' };
  const bob = { ...alice, user: 'bob' };

  it('identity - a session id verifies for its principal only, and only with the same key', () => {
    const ids = new SessionIds('key-1');
    const id = ids.mint(alice);
    expect(id).toMatch(/^mcp-[0-9a-f]{32}\.[0-9a-f]{32}$/);
    expect(ids.verify(alice, id)).toBe(true);
    expect(ids.verify(bob, id)).toBe(false);
    expect(new SessionIds('key-2').verify(alice, id)).toBe(false);
    expect(
      ids.verify(
        alice,
        id.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
      ),
    ).toBe(false);
    expect(ids.verify(alice, 'mcp-../../etc')).toBe(false);
  });

  it('identity - a request without a session gets one per principal and token', () => {
    expect(tokenSession(alice, 't1')).toBe(tokenSession(alice, 't1'));
    expect(tokenSession(alice, 't1')).not.toBe(tokenSession(alice, 't2'));
    expect(tokenSession(alice, 't1')).not.toBe(tokenSession(bob, 't1'));
    expect(tokenSession(alice, 't1')).toMatch(/^mcp-t-[0-9a-f]{32}$/);
  });
});
