import { describe, expect, it } from 'vitest';

import {
  DEFAULT_CREDENTIAL_NAMESPACES,
  checkCredentialNamespace,
  credentialNamespacePrefixes,
  describeCredentialPrefixes,
  parseCredentialNamespaces,
} from '../src/connector/credential-namespace.js';
import { parseCredentialRef, renderCredentialRef } from '../src/connector/credential-ref.js';

const TEAM_A = { tenant: 'team-a', environment: 'prod' };
const defaults = parseCredentialNamespaces(DEFAULT_CREDENTIAL_NAMESPACES);

describe('credential references - one parse for the resolver and the namespace rules', () => {
  it.each([
    ['env://ES_KEY', { scheme: 'env', name: 'ES_KEY' }],
    [
      'file:///etc/tg/es.json',
      { scheme: 'file', absolute: true, segments: ['etc', 'tg', 'es.json'] },
    ],
    ['file://creds/es.json', { scheme: 'file', absolute: false, segments: ['creds', 'es.json'] }],
    ['vault://secret/team-a/es', { scheme: 'vault', segments: ['secret', 'team-a', 'es'] }],
    [
      'vault://secret/team-a/es#api_key',
      { scheme: 'vault', segments: ['secret', 'team-a', 'es'], key: 'api_key' },
    ],
  ])('credential ref - %s parses and renders back', (ref, parts) => {
    const parsed = parseCredentialRef(ref);
    expect(parsed).toEqual({ ok: true, parts });
    expect(parsed.ok && renderCredentialRef(parsed.parts)).toBe(ref);
  });

  it.each([
    ['ENV://ES_KEY', 'it is not an env://, file:// or vault:// reference'],
    ['s3://bucket/key', 'it is not an env://, file:// or vault:// reference'],
    ['env://ES-KEY', 'the variable name must match [A-Za-z_][A-Za-z0-9_]*'],
    ['env://', 'the variable name must match [A-Za-z_][A-Za-z0-9_]*'],
    ['vault://secret/team-a/../team-b/es', 'it has a path segment made of dots (. or ..)'],
    ['vault://secret/team-a/./es', 'it has a path segment made of dots (. or ..)'],
    ['vault://secret/team-a/%2e%2e/team-b/es', 'it holds a percent-encoded character (%)'],
    ['vault://secret/team-a/..%2fteam-b/es', 'it holds a percent-encoded character (%)'],
    ['vault://secret/team-a//es', 'it has an empty path segment'],
    ['vault://secret/team-a/es/', 'it has an empty path segment'],
    ['vault://secret', 'expected vault://<mount>/<path>[#key]'],
    ['vault://secret/team-a/es#k#x', 'it has more than one #'],
    ['vault://secret/team-a/es#', 'the key after # may hold only letters, digits and ._-'],
    ['vault://secret/team-a/es?version=1', 'path segments may hold only letters, digits and ._-'],
    ['vault://secret/team-a\\..\\team-b/es', 'it holds a backslash'],
    ['file:///etc/tg/team-a/../team-b/es.json', 'it has a path segment made of dots (. or ..)'],
    ['file:///etc/tg/team-a/.../es.json', 'it has a path segment made of dots (. or ..)'],
    ['file:///etc/tg//es.json', 'it has an empty path segment'],
    ['file:////etc/tg/es.json', 'it has an empty path segment'],
    ['file://', 'it has an empty path segment'],
    ['file:///etc/tg/es.json\n', 'it holds a control character'],
    ['file:///etc/tg/es\0.json', 'it holds a control character'],
    ['file:///etc/tg/my es.json', 'it holds whitespace'],
    ['file:///etc/tg/ｅs.json', 'it holds a non-ASCII character'],
    ['file:///etc/tg/es.json#x', 'path segments may hold only letters, digits and ._@+=,~-'],
  ])('credential ref - %j is refused: %s', (ref, problem) => {
    expect(parseCredentialRef(ref)).toMatchObject({ ok: false, problem });
  });
});

describe('credential namespaces - matching', () => {
  it('namespaces - the default rules give each tenant and environment its own prefixes', () => {
    expect(credentialNamespacePrefixes(defaults, TEAM_A)).toEqual([
      'vault://secret/team-a/prod/',
      'file:///etc/tollgate/credentials/team-a/prod/',
      'env://TOLLGATE_TEAM_A__PROD__',
    ]);
  });

  it.each([
    'vault://secret/team-a/prod/es-orders',
    'vault://secret/team-a/prod/es-orders#api_key',
    'vault://secret/team-a/prod/nested/deeper#k',
    'file:///etc/tollgate/credentials/team-a/prod/es.json',
    'env://TOLLGATE_TEAM_A__PROD__ES_ORDERS',
    'env://TOLLGATE_TEAM_A__PROD__',
  ])('namespaces - %s is allowed for team-a/prod', (ref) => {
    expect(checkCredentialNamespace(defaults, TEAM_A, ref)).toEqual({ allowed: true });
  });

  const outside = 'it is outside the credential namespace of team-a/prod';
  it.each([
    ['another tenant (vault)', 'vault://secret/team-b/prod/es-orders', outside],
    ['another tenant (file)', 'file:///etc/tollgate/credentials/team-b/prod/es.json', outside],
    ['another tenant (env)', 'env://TOLLGATE_TEAM_B__PROD__ES', outside],
    ['another environment', 'vault://secret/team-a/staging/es', outside],
    ['another environment (env)', 'env://TOLLGATE_TEAM_A__STAGING__ES', outside],
    ['the namespace folder itself', 'vault://secret/team-a/prod', outside],
    ['a longer segment', 'vault://secret/team-a/prodx/es', outside],
    ['a longer tenant segment', 'vault://secret/team-a-x/prod/es', outside],
    ['another mount', 'vault://kv/team-a/prod/es', outside],
    ['an unscoped variable', 'env://ES_KEY', outside],
    ["the service's own secret", 'env://TOLLGATE_CURSOR_KEY', outside],
    ['VAULT_TOKEN', 'env://VAULT_TOKEN', outside],
    ['lower-case variable', 'env://tollgate_team_a__prod__es', outside],
    ['a relative file', 'file://etc/tollgate/credentials/team-a/prod/es.json', outside],
    [
      'dot-dot out of the namespace',
      'vault://secret/team-a/prod/../../team-b/prod/es',
      'it is malformed: it has a path segment made of dots (. or ..)',
    ],
    [
      'dot-dot out of the file namespace',
      'file:///etc/tollgate/credentials/team-a/prod/../../team-b/prod/es.json',
      'it is malformed: it has a path segment made of dots (. or ..)',
    ],
    [
      'a . segment',
      'file:///etc/tollgate/credentials/team-a/prod/./es.json',
      'it is malformed: it has a path segment made of dots (. or ..)',
    ],
    [
      'percent-encoded dot-dot',
      'vault://secret/team-a/prod/%2e%2e/%2e%2e/team-b/prod/es',
      'it is malformed: it holds a percent-encoded character (%)',
    ],
    [
      'a backslash',
      'file:///etc/tollgate/credentials/team-a/prod/..\\..\\team-b\\prod\\es.json',
      'it is malformed: it holds a backslash',
    ],
    [
      'an empty segment',
      'vault://secret/team-a/prod//es',
      'it is malformed: it has an empty path segment',
    ],
    [
      'a second # (the resolver would drop what follows)',
      'vault://secret/team-a/prod/es#k#../../team-b',
      'it is malformed: it has more than one #',
    ],
  ])('namespaces - %s is refused for team-a/prod', (_case, ref, problem) => {
    expect(checkCredentialNamespace(defaults, TEAM_A, ref)).toEqual({
      allowed: false,
      problem,
      expected: [
        'vault://secret/team-a/prod/',
        'file:///etc/tollgate/credentials/team-a/prod/',
        'env://TOLLGATE_TEAM_A__PROD__',
      ],
    });
  });

  it("namespaces - a tenant whose name starts another tenant's never reaches its references", () => {
    const team = { tenant: 'team', environment: 'prod' };
    const rules = parseCredentialNamespaces('vault://secret/{tenant}/,env://TOLLGATE_{TENANT}__');
    for (const ref of ['vault://secret/team-a/es', 'env://TOLLGATE_TEAM_A__ES']) {
      expect(checkCredentialNamespace(rules, team, ref).allowed).toBe(false);
      expect(checkCredentialNamespace(rules, TEAM_A, ref).allowed).toBe(true);
    }
  });

  it.each([
    ['team-a', 'prod', ['env://TG_TEAM_A__PROD__']],
    ['t0-x1-y2', 'eu-west-1', ['env://TG_T0_X1_Y2__EU_WEST_1__']],
    ['team_a', 'prod', []],
    ['team--a', 'prod', []],
    ['team-', 'prod', []],
    ['team-a', 'prod_eu', []],
    ['Team-A', 'prod', []],
    ['team.a', 'prod', []],
  ])(
    'namespaces - env:// names derive from %s/%s unambiguously or not at all',
    (tenant, environment, prefixes) => {
      const rules = parseCredentialNamespaces('env://TG_{TENANT}__{ENVIRONMENT}__');
      expect(credentialNamespacePrefixes(rules, { tenant, environment })).toEqual(prefixes);
    },
  );

  it('namespaces - a partial last segment narrows names within the tenant', () => {
    const rules = parseCredentialNamespaces('vault://secret/{tenant}/es-');
    expect(checkCredentialNamespace(rules, TEAM_A, 'vault://secret/team-a/es-orders').allowed).toBe(
      true,
    );
    expect(checkCredentialNamespace(rules, TEAM_A, 'vault://secret/team-a/pg-orders').allowed).toBe(
      false,
    );
  });

  it('namespaces - relative file rules match relative references only', () => {
    const rules = parseCredentialNamespaces('file://credentials/{tenant}/');
    expect(checkCredentialNamespace(rules, TEAM_A, 'file://credentials/team-a/es.json')).toEqual({
      allowed: true,
    });
    expect(
      checkCredentialNamespace(rules, TEAM_A, 'file:///credentials/team-a/es.json').allowed,
    ).toBe(false);
  });

  it('namespaces - unrestricted allows every reference, even malformed ones (the resolver refuses those)', () => {
    const open = parseCredentialNamespaces(' unrestricted ');
    expect(open.unrestricted).toBe(true);
    expect(checkCredentialNamespace(open, TEAM_A, 'vault://secret/team-b/es')).toEqual({
      allowed: true,
    });
    expect(credentialNamespacePrefixes(open, TEAM_A)).toEqual([]);
  });

  it('namespaces - a scope name no token could carry gets no namespace', () => {
    const bad = { tenant: '../team-b', environment: 'prod' };
    expect(credentialNamespacePrefixes(defaults, bad)).toEqual([]);
    expect(checkCredentialNamespace(defaults, bad, 'vault://secret/team-b/prod/es').allowed).toBe(
      false,
    );
  });

  it('namespaces - prefixes are listed for messages', () => {
    expect(describeCredentialPrefixes(['a/', 'b/', 'c'])).toBe('a/, b/ or c');
    expect(describeCredentialPrefixes(['a/'])).toBe('a/');
    expect(describeCredentialPrefixes([])).toBe(
      'none: no namespace rule applies to this tenant and environment',
    );
  });
});

describe('credential namespaces - rule sets', () => {
  it.each([
    [
      'env://TOLLGATE_{TENANT}_',
      "{TENANT} must be followed by __, or one name's variables would be a prefix of another's (team's TOLLGATE_TEAM_… would cover team-a's TOLLGATE_TEAM_A_…)",
    ],
    [
      'env://TOLLGATE_{TENANT}__{ENVIRONMENT}',
      "{ENVIRONMENT} must be followed by __, or one name's variables would be a prefix of another's (team's TOLLGATE_TEAM_… would cover team-a's TOLLGATE_TEAM_A_…)",
    ],
    [
      'env://TOLLGATE_{tenant}__',
      'env:// rules take the upper-case placeholders {TENANT} and {ENVIRONMENT}, not {tenant}',
    ],
    [
      'env://TOLLGATE_{TEAM}__',
      'unknown placeholder {TEAM} (env:// rules take {TENANT} and {ENVIRONMENT})',
    ],
    ['env://{TENANT}__', 'an env:// rule must start with a letter or _ (a variable name)'],
    ['env://TG-{TENANT}__', 'an env:// rule may hold only letters, digits, _ and placeholders'],
    ['env://TG_{TENANT', 'an env:// rule may hold only letters, digits, _ and placeholders'],
    ['env://TG_SHARED_', 'a rule must hold {TENANT} exactly once (namespaces are per tenant)'],
    [
      'env://TG_{TENANT}__{TENANT}__',
      'a rule must hold {TENANT} exactly once (namespaces are per tenant)',
    ],
    [
      'vault://secret/shared/',
      'a rule must hold {tenant} exactly once (namespaces are per tenant)',
    ],
    [
      'vault://secret/{environment}/{environment}/{tenant}/',
      'a rule may hold its environment at most once',
    ],
    [
      'vault://secret/{tenant}',
      'a placeholder must be followed by / (the rule would otherwise match longer names)',
    ],
    [
      'vault://secret/tg-{tenant}/',
      'a placeholder must be a whole path segment ({tenant} or {environment} between slashes)',
    ],
    [
      'vault://secret/{TENANT}/',
      'vault:// rules take the lower-case placeholders {tenant} and {environment}',
    ],
    ['vault://secret/{tenant}/#key', 'a vault:// rule names a path prefix, never a #key'],
    ['vault://secret//{tenant}/', 'a rule may not have empty path segments (//)'],
    ['file:///etc/../{tenant}/', 'a rule may not have . or .. segments'],
    ['file:///etc/%2e%2e/{tenant}/', 'path segments may hold only letters, digits and ._@+=,~-'],
    [
      'file:///etc\\{tenant}/',
      'a placeholder must be a whole path segment ({tenant} or {environment} between slashes)',
    ],
    ['s3://bucket/{tenant}/', 'expected a rule starting with env://, file:// or vault://'],
    ['', 'empty rule (two commas in a row, or a trailing comma)'],
  ])('namespaces - rule %j is refused: %s', (rule, message) => {
    let caught: unknown;
    try {
      parseCredentialNamespaces(rule);
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: [{ path: 'rules[0]', message, found: rule }],
    });
  });

  it('namespaces - every problem of a rule set is reported at once', () => {
    expect(() => parseCredentialNamespaces('vault://secret/{tenant}/,,env://TG_{TENANT}_')).toThrow(
      "credential namespaces: (empty rule): empty rule (two commas in a row, or a trailing comma); env://TG_{TENANT}_: {TENANT} must be followed by __, or one name's variables would be a prefix of another's (team's TOLLGATE_TEAM_… would cover team-a's TOLLGATE_TEAM_A_…)",
    );
  });

  it.each([
    ['vault://secret/{tenant}/', 'vault://secret/x/{tenant}/'],
    ['vault://secret/{tenant}/', 'vault://secret/{environment}/{tenant}/'],
    ['vault://secret/{tenant}/', 'vault://secret/{tenant}-x/{tenant}/'.replace('{tenant}-x', 'x')],
    ['env://TG_{TENANT}__', 'env://TG_X_{TENANT}__'],
    ['env://TG_{TENANT}__', 'env://TG_{ENVIRONMENT}__{TENANT}__'],
    ['file:///etc/tg/{tenant}/', 'file:///etc/tg/shared/{tenant}/'],
  ])('namespaces - overlapping rules %s and %s are refused', (a, b) => {
    expect(() => parseCredentialNamespaces(`${a},${b}`)).toThrow(
      `overlaps ${a}: one tenant's namespace could hold another tenant's references`,
    );
  });

  it.each([
    ['vault://secret/{tenant}/a/', 'vault://secret/{tenant}/b/'],
    ['vault://secret/{tenant}/', 'vault://kv/{tenant}/'],
    ['vault://secret/{tenant}/', 'file:///secret/{tenant}/'],
    ['file:///etc/tg/{tenant}/', 'file://etc/tg/shared/{tenant}/'],
    ['env://TG_{TENANT}__', 'env://XX_{TENANT}__'],
    ['env://TG_{TENANT}__', 'env://TG_{TENANT}__{ENVIRONMENT}__'],
    ['vault://secret/{tenant}/es-', 'vault://secret/{tenant}/pg-'],
  ])('namespaces - disjoint rules %s and %s are accepted', (a, b) => {
    expect(parseCredentialNamespaces(`${a}, ${b}`).rules.map((r) => r.text)).toEqual([a, b]);
  });
});
