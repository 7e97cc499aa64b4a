import { describe, expect, it } from 'vitest';
import { actingRole, may, operatorFromClaims, parseRoleMap } from '../src/auth/operator.js';
import type { ClaimMapping } from '../src/auth/operator.js';
import { SessionStore, sameToken } from '../src/auth/sessions.js';
import { safeReturnTo } from '../src/auth/sign-in.js';
import { devSignIn } from '../src/http/dev-sign-in.js';

const mapping: ClaimMapping = {
  rolesClaim: 'tollgate_roles',
  roleMap: new Map(),
  tenantsClaim: 'tollgate_tenants',
  defaultTenant: 'team-a',
};

describe('auth - operators from ID token claims', () => {
  it('auth - roles and tenants come from the claims; the e-mail is the user', () => {
    const mapped = operatorFromClaims(
      {
        sub: 'u1',
        email: 'alice@example.com',
        name: 'Alice',
        tollgate_roles: ['approver', 'admin', 'root'],
        tollgate_tenants: 'team-b team-c',
      },
      mapping,
    );
    expect(mapped).toEqual({
      ok: true,
      operator: {
        subject: 'u1',
        user: 'alice@example.com',
        name: 'Alice',
        roles: ['admin', 'approver'],
        tenants: ['team-b', 'team-c'],
      },
    });
  });

  it('auth - without a tenants claim the default tenant is used; the subject stands in for a missing e-mail', () => {
    const mapped = operatorFromClaims({ sub: 'u2', tollgate_roles: 'viewer' }, mapping);
    expect(mapped.ok && mapped.operator).toMatchObject({
      user: 'u2',
      roles: ['viewer'],
      tenants: ['team-a'],
    });
  });

  it('auth - group claims map to roles through the role map, and only through it', () => {
    const groups = {
      ...mapping,
      rolesClaim: 'groups',
      roleMap: parseRoleMap('ops-admins=admin, on-call=approver'),
    };
    const mapped = operatorFromClaims({ sub: 'u3', groups: ['on-call', 'admin'] }, groups);
    expect(mapped.ok && mapped.operator.roles).toEqual(['approver']);
  });

  it('auth - nobody signs in without a console role, a subject, or with a malformed tenant', () => {
    expect(operatorFromClaims({ sub: 'u4', tollgate_roles: ['superuser'] }, mapping)).toMatchObject(
      { ok: false, reason: expect.stringContaining('no console role') },
    );
    expect(operatorFromClaims({ tollgate_roles: ['admin'] }, mapping)).toMatchObject({
      ok: false,
      reason: 'the ID token has no usable subject',
    });
    expect(
      operatorFromClaims(
        { sub: 'u5', tollgate_roles: ['admin'], tollgate_tenants: ['Team_A/../b'] },
        mapping,
      ),
    ).toMatchObject({ ok: false });
  });

  it('auth - a control character in the e-mail never reaches a token', () => {
    const mapped = operatorFromClaims(
      { sub: 'u6', email: 'eve\n@example.com', tollgate_roles: ['viewer'] },
      mapping,
    );
    expect(mapped.ok && mapped.operator.user).toBe('eve_@example.com');
  });

  it('auth - a role map naming an unknown role is refused at start', () => {
    expect(() => parseRoleMap('admins=root')).toThrow(/admin, approver, viewer/);
    expect(() => parseRoleMap('=admin')).toThrow();
  });

  it('auth - each capability acts through the role that grants it', () => {
    const op = {
      subject: 's',
      user: 'u',
      name: 'n',
      roles: ['approver', 'viewer'] as const,
      tenants: ['t'],
    };
    const operator = { ...op, roles: [...op.roles] };
    expect(may(operator, 'manage')).toBe(false);
    expect(may(operator, 'decide')).toBe(true);
    expect(actingRole(operator, 'read')).toBe('approver');
    expect(actingRole(operator, 'manage')).toBeUndefined();
  });
});

describe('auth - sessions', () => {
  it('auth - a session ends after its lifetime and after being idle', () => {
    let now = 0;
    const store = new SessionStore({ ttlSeconds: 100, idleSeconds: 30, now: () => now });
    const operator = {
      subject: 's',
      user: 'u',
      name: 'n',
      roles: ['viewer' as const],
      tenants: ['t'],
    };
    const a = store.create(operator);
    expect(a.tenant).toBe('t');
    now = 20_000;
    expect(store.get(a.id)).toBe(a);
    now = 49_000;
    expect(store.get(a.id)).toBe(a);
    now = 80_000;
    expect(store.get(a.id)).toBeUndefined();
    const b = store.create(operator);
    for (now = 90_000; now < 180_000; now += 20_000) store.get(b.id);
    expect(store.get(b.id)).toBeUndefined();
    expect(store.get(undefined)).toBeUndefined();
    expect(store.get('made-up')).toBeUndefined();
  });

  it('auth - a sign-in is finished once, and not after ten minutes', () => {
    let now = 0;
    const store = new SessionStore({ ttlSeconds: 100, idleSeconds: 30, now: () => now });
    store.begin({ state: 's1', nonce: 'n', codeVerifier: 'v', returnTo: '/' });
    expect(store.finish('s1')?.codeVerifier).toBe('v');
    expect(store.finish('s1')).toBeUndefined();
    store.begin({ state: 's2', nonce: 'n', codeVerifier: 'v', returnTo: '/' });
    now = 600_000;
    expect(store.finish('s2')).toBeUndefined();
  });

  it('auth - tokens compare in constant time and only when equal', () => {
    expect(sameToken('abc', 'abc')).toBe(true);
    expect(sameToken('abc', 'abd')).toBe(false);
    expect(sameToken('abc', 'abcd')).toBe(false);
  });

  it('auth - the page a sign-in returns to stays on the console', () => {
    expect(safeReturnTo('/resources?x=1')).toBe('/resources?x=1');
    for (const bad of [
      '//evil.example/',
      'https://evil.example',
      '/\\evil',
      'resources',
      null,
      '/a\u0000b',
    ]) {
      expect(safeReturnTo(bad)).toBe('/');
    }
  });

  it('auth - the dev sign-in checks the name, the roles and the tenant', () => {
    expect(devSignIn({ user: 'alice', roles: ['admin'] }, 'team-a')).toMatchObject({
      user: 'alice',
      roles: ['admin'],
      tenants: ['team-a'],
    });
    expect(() => devSignIn({ user: 'a b', roles: ['admin'] }, 'team-a')).toThrow(/Name yourself/);
    expect(() => devSignIn({ user: 'alice', roles: ['admin', 'root'] }, 'team-a')).toThrow(
      /Pick roles/,
    );
    expect(() => devSignIn({ user: 'alice', roles: [] }, 'team-a')).toThrow(/Pick roles/);
    expect(() =>
      devSignIn({ user: 'alice', roles: ['viewer'], tenant: 'Team A' }, 'team-a'),
    ).toThrow(/tenant/);
  });
});
