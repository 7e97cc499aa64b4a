/**
 * The orders scenario of the listing tests: team-a's support and order_ops agents share the
 * orders resource with different permissions (user_id is order_ops' only; support may not
 * aggregate and pages at most 20), an operator, and a staging copy.
 */
import type { ResourceDescriptor } from '@tollgate/core';
import type { PolicyBundle } from '@tollgate/policy';
import { agent, bundle, cedarPolicy, resource } from './fixtures.js';

export const TENANT = 'team-a';

export const ordersV1: ResourceDescriptor = resource(TENANT, 'es_orders', {
  description: 'Orders placed in the web shop, one document per order.',
  labels: { domain: 'orders' },
  access: {
    allowedRoles: ['support', 'order_ops'],
    maxLimit: 100,
    fieldRoles: { user_id: ['order_ops'] },
  },
});

export const customersV1: ResourceDescriptor = resource(TENANT, 'es_customers', {
  description: 'Customer accounts of the web shop.',
  fields: {
    customer_id: { type: 'keyword', filterable: true, returnable: true },
    email: { type: 'keyword', returnable: true },
    country: { type: 'keyword', filterable: true, returnable: true },
  },
  access: { allowedRoles: ['support'] },
});

export const stagingOrdersV1: ResourceDescriptor = resource(TENANT, 'es_orders_staging', {
  environment: 'staging',
  description: 'Orders placed in the staging web shop.',
});

export const SUPPORT_LIMITS = [
  'forbid (principal in Role::"support", action == Action::"search", resource == Resource::"es_orders")',
  'when { context has limit && context.limit > 20 };',
  'forbid (principal in Role::"support", action == Action::"aggregate", resource == Resource::"es_orders");',
].join('\n');

/** Team-a's bundle over the given resource versions. */
export function ordersBundle(
  version: number,
  resources: { descriptor: ResourceDescriptor; version: number }[],
  extraAgents: { name: string; roles: string[] }[] = [],
): PolicyBundle {
  return bundle({
    tenant: TENANT,
    version,
    agents: [
      agent(TENANT, 'support_bot', ['support']),
      agent(TENANT, 'ops_bot', ['order_ops']),
      agent(TENANT, 'console', ['operator']),
      ...extraAgents.map((a) => agent(TENANT, a.name, a.roles)),
    ],
    policies: [cedarPolicy(TENANT, 'support-limits', SUPPORT_LIMITS)],
    resources,
  });
}

export const support = { tenant: TENANT, agent: 'support_bot', environment: 'prod' };
export const ops = { tenant: TENANT, agent: 'ops_bot', environment: 'prod' };
export const operator = { tenant: TENANT, agent: 'console', environment: 'prod' };
