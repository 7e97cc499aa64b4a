/**
 * Which bundle decides a call: the caller's environment's (`<tenant>.<environment>`), else the
 * tenant's bundle without resources (`<tenant>`); a removed environment bundle falls back.
 */
import type { AgentDescriptor, ResourceDescriptor } from '@tollgate/core';
import { createLogger, policyBundleKey } from '@tollgate/kit';
import { resourceKinds } from '@tollgate/kinds';
import { compileBundle } from '@tollgate/policy';
import { describe, expect, it } from 'vitest';
import { PolicyDeciders } from '../src/index.js';

const TENANT = 'team-a';
const agent: AgentDescriptor = {
  apiVersion: 'tollgate.dev/v1',
  kind: 'Agent',
  metadata: { name: 'support_bot', tenant: TENANT },
  spec: { roles: ['support'] },
};

function orders(environment: string, allowedRoles: string[]): ResourceDescriptor {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name: 'es_orders', tenant: TENANT, environment },
    spec: {
      type: 'elasticsearch',
      connection: { endpoint: 'http://es.internal:9200', credentialRef: 'env://ES_KEY' },
      target: { index: 'orders' },
      schema: { fields: { id: { type: 'keyword', filterable: true, returnable: true } } },
      access: { allowedRoles },
    },
  } as ResourceDescriptor;
}

function bundle(resources: ResourceDescriptor[]): Uint8Array {
  const compiled = compileBundle({
    tenant: TENANT,
    version: 1,
    agents: [agent],
    policies: [],
    resources: resources.map((descriptor) => ({
      version: 1,
      descriptor,
      operations: resourceKinds.find('elasticsearch')!.operations(descriptor),
    })),
  });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  return new TextEncoder().encode(JSON.stringify(compiled.bundle));
}

const who = (environment: string) => ({ tenant: TENANT, agent: 'support_bot', environment });
const decision = (deciders: PolicyDeciders, environment: string) =>
  deciders.forCall(TENANT, environment)?.decide(who(environment), 'search', 'es_orders');

describe('deciders - the bundle of the caller’s environment', () => {
  it('deciders - each environment decides with its own bundle, an environment without one with the tenant’s', () => {
    const deciders = new PolicyDeciders(createLogger({ service: 'test', level: 'silent' }));
    deciders.apply(policyBundleKey(TENANT), bundle([]));
    deciders.apply(policyBundleKey(TENANT, 'dev'), bundle([orders('dev', ['support'])]));
    deciders.apply(policyBundleKey(TENANT, 'prod'), bundle([orders('prod', [])]));
    expect(decision(deciders, 'dev')?.decision).toBe('allow');
    expect(decision(deciders, 'prod')?.decision).toBe('deny');
    expect(decision(deciders, 'staging')).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('unknown resource'),
    });
    // The dev bundle is removed: dev falls back to the tenant's bundle, which holds no resource.
    deciders.apply(policyBundleKey(TENANT, 'dev'), undefined);
    expect(decision(deciders, 'dev')?.reason).toContain('unknown resource');
    expect(deciders.forCall('team-b', 'dev')).toBeUndefined();
  });

  it('deciders - a bundle under another tenant’s key decides nothing', () => {
    const deciders = new PolicyDeciders(createLogger({ service: 'test', level: 'silent' }));
    deciders.apply(policyBundleKey('team-b', 'dev'), bundle([orders('dev', ['support'])]));
    expect(deciders.forCall('team-b', 'dev')).toBeUndefined();
  });
});
