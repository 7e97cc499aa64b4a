import { describe, expect, it } from 'vitest';
import type { AgentDescriptor, PolicyDescriptor } from '@tollgate/core';
import { LocalDecider, parseBundle } from '@tollgate/policy';
import { TenantCompiler, bundleContentHash, cedarOfPolicy, compileTenant } from '../src/index.js';
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
    expect(result.bundle.version).toBe(3);
    expect(cedarOfPolicy(result.bundle, 'read-orders')).toContain(
      '@id("policy/read-orders/grant/0")',
    );
    expect(cedarOfPolicy(result.bundle, 'other')).toBe('');
    const decider = LocalDecider.fromBundle(result.bundle);
    expect(
      decider.decide(
        { tenant: TENANT, agent: 'support_bot', environment: 'prod' },
        'get',
        'es_orders',
      ).decision,
    ).toBe('allow');
  });

  it('compile - a resource name live in two environments, or a resource that does not compile, is left out (denied), not fatal', () => {
    const broken = publishedResource(TENANT, 'es_broken', { allowedRoles: ['support'] });
    (broken.descriptor.spec as { access?: unknown }).access = undefined;
    const result = compileTenant({
      tenant: TENANT,
      version: 1,
      agents: [agent('support_bot', ['support'])],
      policies: [readOrders],
      resources: [
        publishedResource(
          TENANT,
          'es_orders',
          { allowedRoles: ['support'] },
          { environment: 'prod' },
        ),
        publishedResource(
          TENANT,
          'es_orders',
          { allowedRoles: ['support'] },
          { environment: 'staging' },
        ),
        broken,
        publishedResource(TENANT, 'es_users', { allowedRoles: ['support'] }),
      ],
    });
    expect(result.ok).toBe(true);
    expect(result.excluded).toEqual([
      {
        name: 'es_orders',
        reason:
          "declared in environments prod, staging; a tenant's bundle holds one resource per name",
      },
      { name: 'es_broken', reason: 'Resource/es_broken/spec.access: is required' },
    ]);
    if (!result.ok) return;
    const decider = LocalDecider.fromBundle(result.bundle);
    const who = { tenant: TENANT, agent: 'support_bot', environment: 'prod' };
    expect(decider.decide(who, 'search', 'es_users').decision).toBe('allow');
    expect(decider.decide(who, 'search', 'es_orders')).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('unknown resource'),
    });
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
    expect(second.bundle.version).toBe(7);
    expect(second.bundle.policies).toBe(first.bundle.policies); // recalled, not recompiled
    expect(second.contentHash).toBe(first.contentHash);
    expect(bundleContentHash(second.bundle)).toBe(second.contentHash);
    expect(parseBundle(JSON.stringify(second.bundle)).ok).toBe(true);
    const changed = compiler.compile({
      ...inputs(8),
      agents: [{ descriptor: agent('support_bot', ['support', 'x_role']), hash: 'a2' }],
    });
    expect(changed.ok && changed.contentHash !== first.contentHash).toBe(true);
  });
});
