import { describe, expect, it } from 'vitest';
import type { AgentDescriptor, PolicyDescriptor } from '@tollgate/core';
import { LocalDecider, parseBundle } from '@tollgate/policy';
import {
  TenantCompiler,
  bundleContentHash,
  cedarOfPolicy,
  compileTenant,
  tenantContentHash,
} from '../src/index.js';
import type { TenantBundle } from '../src/index.js';
import { publishedResource } from './fixtures.js';

const TENANT = 'team-a';
const agent = (name: string, roles: string[]): AgentDescriptor => ({
  apiVersion: 'tollgate.dev/v1',
  kind: 'Agent',
  metadata: { name, tenant: TENANT },
  spec: { roles },
});
const policy = (name: string, spec: PolicyDescriptor['spec']): PolicyDescriptor => ({
  apiVersion: 'tollgate.dev/v1',
  kind: 'Policy',
  metadata: { name, tenant: TENANT },
  spec,
});
/** The bundle of `environment` (undefined: the one without resources). */
const bundleOf = (bundles: TenantBundle[], environment?: string) => {
  const found = bundles.find((b) => b.environment === environment);
  if (found === undefined) throw new Error(`no bundle for ${String(environment)}`);
  return found.bundle;
};
const readOrders = policy('read-orders', {
  grants: [{ effect: 'allow', principals: { roles: ['support'] }, actions: ['es_orders.get'] }],
});

describe('compile', () => {
  it('compile - a tenant compiles with its agents, policies and resources; the Cedar of a policy is its own', () => {
    const result = compileTenant({
      tenant: TENANT,
      version: 3,
      agents: [agent('support_bot', ['support'])],
      policies: [readOrders],
      resources: [publishedResource(TENANT, 'es_orders', { allowedRoles: ['support'] })],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.excluded).toEqual([]);
    expect(result.bundles.map((b) => [b.environment, b.bundle.version])).toEqual([
      [undefined, 3],
      ['prod', 3],
    ]);
    expect(bundleOf(result.bundles).entities.map((e) => e.uid)).not.toContainEqual({
      type: 'Resource',
      id: 'es_orders',
    });
    expect(cedarOfPolicy(result.bundles, 'read-orders')).toContain(
      '@id("policy/read-orders/grant/0")',
    );
    expect(cedarOfPolicy(result.bundles, 'other')).toBe('');
    const decider = LocalDecider.fromBundle(bundleOf(result.bundles, 'prod'));
    expect(
      decider.decide(
        { tenant: TENANT, agent: 'support_bot', environment: 'prod' },
        'get',
        'es_orders',
      ).decision,
    ).toBe('allow');
  });

  it('compile - the same resource name in two environments is two resources, each in its own bundle', () => {
    const result = compileTenant({
      tenant: TENANT,
      version: 1,
      agents: [agent('support_bot', ['support'])],
      policies: [
        readOrders,
        policy('no-prod-counts', {
          grants: [
            {
              effect: 'deny',
              principals: { roles: ['support'] },
              actions: ['es_orders.count'],
              conditions: { environment: ['prod'] },
            },
          ],
        }),
      ],
      resources: [
        publishedResource(TENANT, 'es_orders', { allowedRoles: ['support'], maxLimit: 10 }),
        publishedResource(
          TENANT,
          'es_orders',
          { allowedRoles: ['support'], maxLimit: 40 },
          { environment: 'staging' },
        ),
      ],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.excluded).toEqual([]);
    expect(result.bundles.map((b) => b.environment)).toEqual([undefined, 'prod', 'staging']);
    const prod = LocalDecider.fromBundle(bundleOf(result.bundles, 'prod'));
    const staging = LocalDecider.fromBundle(bundleOf(result.bundles, 'staging'));
    const inProd = { tenant: TENANT, agent: 'support_bot', environment: 'prod' };
    const inStaging = { ...inProd, environment: 'staging' };
    // Each environment's entity carries its own attributes, and a denial in one stays there.
    expect(prod.permissionSet(inProd, 'es_orders').limitCap).toBe(10);
    expect(staging.permissionSet(inStaging, 'es_orders').limitCap).toBe(40);
    expect(prod.decide(inProd, 'search', 'es_orders').decision).toBe('allow');
    expect(staging.decide(inStaging, 'search', 'es_orders').decision).toBe('allow');
    expect(prod.decide(inProd, 'count', 'es_orders').decision).toBe('deny');
    expect(staging.decide(inStaging, 'count', 'es_orders').decision).toBe('allow');
    // A caller of one environment is not let into the other's bundle.
    expect(prod.decide(inStaging, 'search', 'es_orders').decision).toBe('deny');
  });

  it('compile - a resource that does not compile is left out of its environment (denied), not fatal', () => {
    const broken = publishedResource(TENANT, 'es_broken', { allowedRoles: ['support'] });
    (broken.descriptor.spec as { access?: unknown }).access = undefined;
    const result = compileTenant({
      tenant: TENANT,
      version: 1,
      agents: [agent('support_bot', ['support'])],
      policies: [readOrders],
      resources: [broken, publishedResource(TENANT, 'es_users', { allowedRoles: ['support'] })],
    });
    expect(result.ok).toBe(true);
    expect(result.excluded).toEqual([
      {
        environment: 'prod',
        name: 'es_broken',
        reason: 'Resource/es_broken/spec.access: is required',
      },
    ]);
    if (!result.ok) return;
    const decider = LocalDecider.fromBundle(bundleOf(result.bundles, 'prod'));
    const who = { tenant: TENANT, agent: 'support_bot', environment: 'prod' };
    expect(decider.decide(who, 'search', 'es_users').decision).toBe('allow');
    expect(decider.decide(who, 'search', 'es_broken')).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('unknown resource'),
    });
  });

  it('compile - a grant naming an operation of a resource in another environment compiles in every bundle', () => {
    const result = compileTenant({
      tenant: TENANT,
      version: 1,
      agents: [agent('support_bot', ['support'])],
      policies: [
        policy('read-users', {
          grants: [
            { effect: 'allow', principals: { roles: ['support'] }, actions: ['es_users.get'] },
          ],
        }),
      ],
      resources: [
        publishedResource(TENANT, 'es_orders', { allowedRoles: [] }),
        publishedResource(TENANT, 'es_users', { allowedRoles: [] }, { environment: 'staging' }),
      ],
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.bundles.map((b) => b.environment)).toEqual([undefined, 'prod', 'staging']);
    const staging = LocalDecider.fromBundle(bundleOf(result.bundles, 'staging'));
    expect(
      staging.decide(
        { tenant: TENANT, agent: 'support_bot', environment: 'staging' },
        'get',
        'es_users',
      ).decision,
    ).toBe('allow');
  });

  it('compile - problems in policies fail the whole compilation with their paths', () => {
    const result = compileTenant({
      tenant: TENANT,
      version: 1,
      agents: [],
      policies: [
        policy('raw', { cedar: 'permit (principal, action, resource)\nwhen { context.nope };' }),
      ],
      resources: [],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]).toMatchObject({ path: 'Policy/raw/spec.cedar', line: 2 });
  });

  it('compile - the content hash ignores the version; the compiler recalls what it compiled', () => {
    const compiler = new TenantCompiler();
    const inputs = (version: number) => ({
      tenant: TENANT,
      version,
      agents: [{ descriptor: agent('support_bot', ['support']), hash: 'a1' }],
      policies: [{ descriptor: readOrders, hash: 'p1' }],
      resources: [publishedResource(TENANT, 'es_orders', { allowedRoles: ['support'] })],
    });
    const first = compiler.compile(inputs(0));
    const second = compiler.compile(inputs(7));
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    const [firstProd, secondProd] = [
      bundleOf(first.bundles, 'prod'),
      bundleOf(second.bundles, 'prod'),
    ];
    expect(secondProd.version).toBe(7);
    expect(secondProd.policies).toBe(firstProd.policies); // recalled, not recompiled
    expect(second.contentHash).toBe(first.contentHash);
    expect(tenantContentHash(second.bundles)).toBe(second.contentHash);
    expect(bundleContentHash(secondProd)).toBe(bundleContentHash(firstProd));
    expect(parseBundle(JSON.stringify(secondProd)).ok).toBe(true);
    const changed = compiler.compile({
      ...inputs(8),
      agents: [{ descriptor: agent('support_bot', ['support', 'x_role']), hash: 'a2' }],
    });
    expect(changed.ok && changed.contentHash !== first.contentHash).toBe(true);
  });
});
