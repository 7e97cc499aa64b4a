/**
 * A tenant's policy as the policy service would publish it, for memory's checks against live
 * state: the orders resources every test agent may read (and es_orders write), the review
 * surfaces `console` and `cli` with the reviewer role, compiled by the policy package itself.
 */
import type { AgentDescriptor, FieldSpec, ResourceDescriptor } from '@tollgate/core';
import { compileBundle } from '@tollgate/policy';
import type { PolicyBundle } from '@tollgate/policy';
import { operationsOf } from '@tollgate/kinds';

const FIELDS: Record<string, FieldSpec> = {
  id: { type: 'keyword', filterable: true, returnable: true },
  user_id: { type: 'keyword', filterable: true, returnable: true },
  customer_id: { type: 'keyword', filterable: true, returnable: true },
  amount: { type: 'double', range: true, returnable: true, sortable: true },
  created_at: { type: 'date', range: true, returnable: true, sortable: true },
  status: { type: 'keyword', filterable: true, returnable: true },
  currency: { type: 'keyword', filterable: true, returnable: true },
  email: { type: 'keyword', filterable: true, returnable: true },
  key: { type: 'keyword', filterable: true, returnable: true },
  text: { type: 'text', returnable: true },
  internal_note: { type: 'text', returnable: false },
};

/** Resources of the test tenants. */
export const TEST_RESOURCES = [
  'es_orders',
  'es_customers',
  'es_refunds',
  'es_other',
  'es_keys',
  'es_notes',
] as const;

/** Agents that call tools in the tests (role `agent`). */
export const TEST_AGENTS = [
  'bot',
  'iso_bot',
  'learner',
  'learner_bot',
  'long_bot',
  'other',
  'other_bot',
  'outage',
  'pager_bot',
  'quiet_bot',
  'race_bot',
  'recon',
  'repeat_bot',
  'screen_bot',
  'sq_bot',
  'worker',
  'order_ops',
] as const;

/** Agents of the review surfaces (role `reviewer`). */
export const REVIEW_AGENTS = ['console', 'cli'] as const;

function resource(tenant: string, name: string): ResourceDescriptor {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name, tenant, environment: 'prod' },
    spec: {
      type: 'elasticsearch',
      connection: { endpoint: 'http://es.internal:9200', credentialRef: 'env://ES_KEY' },
      target: { index: name },
      schema: { fields: FIELDS },
      access: {
        allowedRoles: ['agent'],
        maxLimit: 100,
        ...(name === 'es_orders' ? { readonly: false } : {}),
      },
    },
  } as ResourceDescriptor;
}

function agent(tenant: string, name: string, roles: string[]): AgentDescriptor {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Agent',
    metadata: { name, tenant },
    spec: { roles },
  };
}

/** The compiled bundle of a test tenant (`resources`: the ones it has, default all). */
export function testBundle(
  tenant: string,
  options: { version?: number; resources?: readonly string[] } = {},
): PolicyBundle {
  const compiled = compileBundle({
    tenant,
    version: options.version ?? 1,
    agents: [
      ...TEST_AGENTS.map((name) => agent(tenant, name, ['agent'])),
      ...REVIEW_AGENTS.map((name) => agent(tenant, name, ['reviewer'])),
    ],
    policies: [],
    resources: (options.resources ?? TEST_RESOURCES).map((name) => {
      const descriptor = resource(tenant, name);
      return { version: 1, descriptor, operations: operationsOf(descriptor) };
    }),
  });
  if (!compiled.ok)
    throw new Error(`test bundle does not compile: ${JSON.stringify(compiled.problems)}`);
  return compiled.bundle;
}
