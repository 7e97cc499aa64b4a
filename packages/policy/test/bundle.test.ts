import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import {
  BUNDLE_FORMAT,
  LocalDecider,
  MAX_BUNDLE_JSON_BYTES,
  bundleText,
  compileBundle,
  encodeBundle,
  isGzip,
  parseBundle,
} from '../src/index.js';
import type { BundleInputs } from '../src/index.js';
import { TENANT, agent, compiled, ordersInputs, policy, resource } from './fixtures.js';

function reversed(inputs: BundleInputs): BundleInputs {
  return {
    ...inputs,
    agents: [...inputs.agents].reverse(),
    policies: [...inputs.policies].reverse(),
    resources: [...inputs.resources].reverse(),
  };
}

function problemsOf(inputs: BundleInputs) {
  const result = compileBundle(inputs);
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

describe('bundle - determinism', () => {
  test('bundle - same inputs give the same hash', () => {
    const a = compiled();
    const b = compiled();
    expect(a.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(b.hash).toBe(a.hash);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  test('bundle - input order does not matter', () => {
    expect(compiled(reversed(ordersInputs())).hash).toBe(compiled().hash);
  });

  test('bundle - any change changes the hash', () => {
    const base = compiled().hash;
    expect(compiled({ ...ordersInputs(), version: 8 }).hash).not.toBe(base);
    const inputs = ordersInputs();
    inputs.agents.push(agent('newcomer', ['support']));
    expect(compiled(inputs).hash).not.toBe(base);
  });

  test('bundle - a compiled bundle survives JSON and parses strictly', () => {
    const bundle = compiled();
    const parsed = parseBundle(new TextEncoder().encode(JSON.stringify(bundle)));
    expect(parsed).toEqual({ ok: true, bundle });
  });

  test('bundle - carries schema, zones, policies, entities and rate limits', () => {
    const bundle = compiled();
    expect(bundle.format).toBe(BUNDLE_FORMAT);
    expect(bundle.zones).toEqual([
      { zone: 'Asia/Shanghai', key: 'Asia_Shanghai' },
      { zone: 'Europe/Berlin', key: 'Europe_Berlin' },
    ]);
    expect(bundle.schema).toContain(
      'type Clock = { "Asia_Shanghai": Long, "Europe_Berlin": Long };',
    );
    expect(bundle.rateLimits).toEqual([
      {
        policyId: 'policy/support-read-orders/grant/0',
        principals: { roles: ['support'], agents: [] },
        actions: ['es_orders.get', 'es_orders.search'],
        requests: 60,
        perSeconds: 60,
      },
    ]);
    const grant = bundle.policies.find((p) => p.id === 'policy/support-read-orders/grant/0');
    expect(grant).toMatchObject({
      effect: 'allow',
      kind: 'grant',
      source: 'Policy/support-read-orders',
      resources: ['es_orders'],
    });
    expect(grant?.cedar).toContain(
      'context.sourceIp.isInRange(ip("10.0.0.0/8")) || context.sourceIp.isInRange(ip("2001:db8::/32"))',
    );
    expect(grant?.cedar).toContain(
      '(context.clock.Asia_Shanghai >= 480 && context.clock.Asia_Shanghai < 1200)',
    );
    const night = bundle.policies.find((p) => p.id === 'policy/night-batch/grant/0');
    expect(night?.cedar).toContain(
      '(context.clock.Europe_Berlin >= 1320 || context.clock.Europe_Berlin < 360)',
    );
    const approval = bundle.policies.find((p) => p.id === 'policy/support-read-orders/grant/1');
    expect(approval?.cedar).toMatch(
      /^@id\("policy\/support-read-orders\/grant\/1"\)\n@tollgate_effect\("require_approval"\)\npermit/,
    );
    expect(bundle.policies.find((p) => p.id === 'policy/guards/grant/0')?.cedar).toContain(
      'forbid (',
    );
    const types = new Set(bundle.entities.map((e) => (e.uid as { type: string }).type));
    expect([...types].sort()).toEqual(['Agent', 'Field', 'Resource', 'Role', 'Tenant']);
  });
});

describe('bundle - problems', () => {
  test('bundle - descriptors of another tenant are rejected', () => {
    const inputs = ordersInputs();
    inputs.agents.push(agent('stranger', ['support'], 'team-b'));
    inputs.resources.push(resource('es_foreign', { allowedRoles: [] }, { tenant: 'team-b' }));
    inputs.policies.push(policy('foreign', [], undefined, 'team-b'));
    expect(problemsOf(inputs)).toEqual([
      {
        path: 'Agent/stranger/metadata.tenant',
        message: 'belongs to tenant "team-b", not "team-a"',
      },
      {
        path: 'Resource/es_foreign/metadata.tenant',
        message: 'belongs to tenant "team-b", not "team-a"',
      },
      {
        path: 'Policy/foreign/metadata.tenant',
        message: 'belongs to tenant "team-b", not "team-a"',
      },
    ]);
  });

  test('bundle - duplicate names are rejected', () => {
    const inputs = ordersInputs();
    inputs.agents.push(agent('ops_bot', []));
    inputs.resources.push(resource('es_orders', { allowedRoles: [] }));
    inputs.policies.push(policy('guards', []));
    expect(problemsOf(inputs)).toEqual([
      { path: 'Agent/ops_bot', message: 'declared twice' },
      { path: 'Resource/es_orders', message: 'declared twice' },
      { path: 'Policy/guards', message: 'declared twice' },
    ]);
  });

  test('bundle - grant problems name the grant and member', () => {
    const inputs: BundleInputs = {
      tenant: TENANT,
      version: 1,
      agents: [],
      resources: [],
      policies: [
        policy('bad', [
          { effect: 'allow', principals: {}, actions: ['orders'] },
          {
            effect: 'allow',
            principals: { roles: ['r'] },
            actions: ['es_*.search', 'es_orders.view_field'],
          },
          {
            effect: 'allow',
            principals: { roles: ['r'] },
            actions: ['*.*'],
            conditions: { ipCidr: ['10.0.0.0/33', '::ffff:10.0.0.1', 'office'] },
          },
          {
            effect: 'allow',
            principals: { roles: ['r'] },
            actions: ['*.*'],
            conditions: { timeWindow: '8:00-20:00 Asia/Shanghai' },
          },
          {
            effect: 'allow',
            principals: { roles: ['r'] },
            actions: ['*.*'],
            conditions: { timeWindow: '08:00-08:00 UTC' },
          },
          {
            effect: 'allow',
            principals: { roles: ['r'] },
            actions: ['*.*'],
            conditions: { timeWindow: '08:00-20:00 Mars/Olympus' },
          },
          {
            effect: 'deny',
            principals: { roles: ['r'] },
            actions: ['*.*'],
            rateLimit: { requests: 1, perSeconds: 1 },
          },
          {
            effect: 'allow',
            principals: { roles: ['r'] },
            actions: ['*.*'],
            rateLimit: { requests: 0, perSeconds: 1 },
          },
          {
            effect: 'grant' as 'allow',
            principals: { roles: ['r'] },
            actions: ['*.*'],
            conditions: { weekdays: ['mon'] } as object,
          },
        ]),
      ],
    };
    expect(problemsOf(inputs)).toEqual([
      {
        path: 'Policy/bad/spec.grants[0].principals',
        message: 'a grant needs at least one role or agent',
      },
      {
        path: 'Policy/bad/spec.grants[0].actions[0]',
        message: '"orders" is not <resource>.<operation>',
      },
      {
        path: 'Policy/bad/spec.grants[1].actions[0]',
        message:
          '"es_*.search": resource must be a resource name or * (a whole segment), found "es_*"',
      },
      {
        path: 'Policy/bad/spec.grants[1].actions[1]',
        message:
          '"es_orders.view_field": operation must be an operation name ([a-z][a-z0-9_]*, not read, change, destroy, view_field or filter_field) or *, found "view_field"',
      },
      {
        path: 'Policy/bad/spec.grants[2].conditions.ipCidr[0]',
        message: '"10.0.0.0/33": prefix length must be 0-32',
      },
      {
        path: 'Policy/bad/spec.grants[2].conditions.ipCidr[1]',
        message: '"::ffff:10.0.0.1" is not an IPv4 or IPv6 address or CIDR range',
      },
      {
        path: 'Policy/bad/spec.grants[2].conditions.ipCidr[2]',
        message: '"office" is not an IPv4 or IPv6 address or CIDR range',
      },
      {
        path: 'Policy/bad/spec.grants[3].conditions.timeWindow',
        message: '"8:00-20:00 Asia/Shanghai" is not "HH:MM-HH:MM Area/City"',
      },
      {
        path: 'Policy/bad/spec.grants[4].conditions.timeWindow',
        message:
          '"08:00-08:00 UTC": start and end are the same time; omit timeWindow to allow the whole day',
      },
      {
        path: 'Policy/bad/spec.grants[5].conditions.timeWindow',
        message: '"08:00-20:00 Mars/Olympus": unknown time zone "Mars/Olympus"',
      },
      {
        path: 'Policy/bad/spec.grants[6].rateLimit',
        message: 'a deny grant cannot carry a rate limit',
      },
      {
        path: 'Policy/bad/spec.grants[7].rateLimit',
        message: 'must be { requests, perSeconds } with positive whole numbers',
      },
      {
        path: 'Policy/bad/spec.grants[8].effect',
        message: 'effect must be one of allow, deny, require_approval',
      },
      {
        path: 'Policy/bad/spec.grants[8].conditions.weekdays',
        message: 'unknown condition; use ipCidr, timeWindow, environment',
      },
    ]);
  });

  test('bundle - resource access problems are reported', () => {
    const inputs: BundleInputs = {
      tenant: TENANT,
      version: 1,
      agents: [],
      policies: [],
      resources: [resource('es_orders', { allowedRoles: ['ok', ''], maxLimit: 0 }, { version: 0 })],
    };
    expect(problemsOf(inputs)).toEqual([
      { path: 'Resource/es_orders', message: 'version must be a positive whole number' },
      {
        path: 'Resource/es_orders/spec.access.allowedRoles',
        message: 'must be a list of non-empty role names',
      },
      {
        path: 'Resource/es_orders/spec.access.maxLimit',
        message: 'must be a positive whole number',
      },
    ]);
  });

  test('bundle - tenant and version are checked first', () => {
    expect(
      problemsOf({ tenant: '', version: -1, agents: [], policies: [], resources: [] }),
    ).toEqual([
      { path: 'tenant', message: 'must be a non-empty string' },
      { path: 'version', message: 'must be a whole number ≥ 0' },
    ]);
  });

  test('bundle - an empty tenant compiles to guards only', () => {
    const bundle = compiled({
      tenant: TENANT,
      version: 0,
      agents: [],
      policies: [],
      resources: [],
    });
    expect(bundle.policies.map((p) => p.id)).toEqual([
      'tollgate/environment-match',
      'tollgate/field-access',
      'tollgate/field-filterable',
      'tollgate/field-returnable',
      'tollgate/limit-cap',
      'tollgate/read-only',
      'tollgate/tenant-isolation',
    ]);
  });
});

describe('bundle - strict parsing', () => {
  test('bundle - wrong member types are named', () => {
    const bundle = { ...compiled(), version: '7' };
    expect(parseBundle(bundle)).toEqual({
      ok: false,
      reason: 'bundle.version must be a whole number ≥ 0',
    });
  });

  test('bundle - a wrong format tag is rejected', () => {
    expect(parseBundle({ ...compiled(), format: 'other/v2' })).toEqual({
      ok: false,
      reason: `bundle.format must be "${BUNDLE_FORMAT}"`,
    });
  });

  test('bundle - a policy with an unknown effect is rejected', () => {
    const bundle = compiled();
    const policies = bundle.policies.map((p, i) => (i === 0 ? { ...p, effect: 'maybe' } : p));
    expect(parseBundle({ ...bundle, policies })).toEqual({
      ok: false,
      reason: 'bundle.policies[0].effect must be one of allow, deny, require_approval',
    });
  });

  test('bundle - a missing member is named', () => {
    const { rateLimits: _drop, ...rest } = compiled();
    expect(parseBundle(rest)).toEqual({ ok: false, reason: 'bundle.rateLimits is missing' });
  });
});

describe('bundle - stored form', () => {
  function manyResources(count: number): BundleInputs {
    const inputs = ordersInputs();
    for (let i = 0; i < count; i++) {
      inputs.resources.push(resource(`es_logs_${i}`, { allowedRoles: ['support'], maxLimit: 50 }));
    }
    return inputs;
  }

  test('bundle - stored gzip-compressed, read back to the same bundle', () => {
    const bundle = compiled(manyResources(500));
    const json = new TextEncoder().encode(JSON.stringify(bundle));
    const stored = encodeBundle(bundle);
    expect(isGzip(stored)).toBe(true);
    // Over NATS's default 1 MiB as JSON; far under it compressed.
    expect(json.length).toBeGreaterThan(1024 * 1024);
    expect(stored.length).toBeLessThan(json.length / 8);
    expect(parseBundle(stored)).toEqual({ ok: true, bundle });
    expect(JSON.parse(bundleText(stored))).toEqual(bundle);
    // Plain JSON (bundles stored before compression) still reads.
    expect(parseBundle(json)).toEqual({ ok: true, bundle });
  });

  test('bundle - corrupt or oversized compressed bundles are refused with the reason', () => {
    const stored = encodeBundle(compiled());
    const truncated = stored.subarray(0, stored.length - 20);
    expect(parseBundle(truncated)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^bundle is not valid gzip: /),
    });
    const bomb = gzipSync(Buffer.alloc(MAX_BUNDLE_JSON_BYTES + 1, 0x20));
    expect(bomb.length).toBeLessThan(200 * 1024);
    expect(parseBundle(bomb)).toEqual({
      ok: false,
      reason: `bundle expands to more than ${MAX_BUNDLE_JSON_BYTES} bytes`,
    });
  });

  test('bundle - a decider loads a large stored bundle and decides on any of its resources', () => {
    const decider = LocalDecider.fromBundle(encodeBundle(compiled(manyResources(500))));
    expect(decider.status()).toMatchObject({ state: 'ready' });
    const principal = { tenant: TENANT, agent: 'support_bot', environment: 'prod' };
    expect(decider.decide(principal, 'search', 'es_logs_499').decision).toBe('allow');
    expect(decider.decide(principal, 'write', 'es_logs_0').decision).toBe('deny');
  });
});

describe('bundle - operation names in grants', () => {
  const base = ordersInputs();
  const withGrant = (actions: string[]) => ({
    ...base,
    policies: [
      ...base.policies,
      {
        apiVersion: 'tollgate.dev/v1' as const,
        kind: 'Policy' as const,
        metadata: { name: 'typo', tenant: TENANT },
        spec: {
          grants: [{ effect: 'deny' as const, principals: { roles: ['support'] }, actions }],
        },
      },
    ],
  });
  const problemsOf = (actions: string[]) => {
    const result = compileBundle(withGrant(actions));
    return result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`);
  };

  test('bundle - a grant naming an operation no resource has is refused, not silently inert', () => {
    expect(problemsOf(['es_orders.wirte'])).toEqual([
      'Policy/typo/spec.grants[0].actions[0]: "es_orders.wirte": es_orders has no operation "wirte" (it has: search, get, count, aggregate, write)',
    ]);
    expect(problemsOf(['es_nothing_yet.purge'])).toEqual([
      'Policy/typo/spec.grants[0].actions[0]: "es_nothing_yet.purge": no resource of this tenant has an operation "purge"',
    ]);
  });

  test('bundle - the family operations and wildcards are always accepted', () => {
    // A write on a read-only resource is a real operation the read-only guard denies.
    expect(
      problemsOf(['es_customers.write', 'es_customers.*', '*.count', 'es_later.search']),
    ).toEqual([]);
  });
});
