/**
 * Descriptors and bundles as the registry and the policy service would write them into KV.
 */
import type {
  AccessSpec,
  AgentDescriptor,
  FieldSpec,
  PolicyDescriptor,
  PublishedResource,
  ResourceDescriptor,
} from '@tollgate/core';
import { descriptorHash } from '@tollgate/core';
import { resourceKinds } from '@tollgate/kinds';
import { compileBundle } from '@tollgate/policy';
import type { BundleInputs, PolicyBundle } from '@tollgate/policy';

export interface ResourceOptions {
  environment?: string;
  description?: string;
  labels?: Record<string, string>;
  fields?: Record<string, FieldSpec>;
  access?: AccessSpec;
}

/** The orders resource of the examples: support and order_ops share it, user_id is order_ops' only. */
export const ORDER_FIELDS: Record<string, FieldSpec> = {
  id: { type: 'keyword', filterable: true, returnable: true, description: 'Order id' },
  user_id: { type: 'keyword', filterable: true, returnable: true, aggregatable: true },
  amount: { type: 'double', range: true, returnable: true, sortable: true, aggregatable: true },
  created_at: { type: 'date', range: true, returnable: true, sortable: true },
  status: { type: 'keyword', filterable: true, returnable: true, aggregatable: true },
  internal_note: { type: 'text', returnable: false },
};

export function resource(
  tenant: string,
  name: string,
  options: ResourceOptions = {},
): ResourceDescriptor {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: {
      name,
      tenant,
      environment: options.environment ?? 'prod',
      ...(options.description !== undefined ? { description: options.description } : {}),
      ...(options.labels !== undefined ? { labels: options.labels } : {}),
    },
    spec: {
      type: 'elasticsearch',
      connection: { endpoint: 'http://es.internal:9200', credentialRef: 'env://ES_KEY' },
      target: { index: name },
      schema: { fields: options.fields ?? ORDER_FIELDS },
      access: options.access ?? { allowedRoles: ['support', 'order_ops'], maxLimit: 100 },
    },
  } as ResourceDescriptor;
}

export function agent(tenant: string, name: string, roles: string[]): AgentDescriptor {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Agent',
    metadata: { name, tenant },
    spec: { roles },
  };
}

export function cedarPolicy(tenant: string, name: string, cedar: string): PolicyDescriptor {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Policy',
    metadata: { name, tenant },
    spec: { grants: [], cedar },
  };
}

/** The KV value the registry projects for one version. */
export function published(descriptor: ResourceDescriptor, version: number): PublishedResource {
  const { tenant, environment, name } = descriptor.metadata;
  return {
    tenant,
    environment,
    name,
    version,
    hash: descriptorHash(descriptor),
    descriptor,
    publishedAt: new Date().toISOString(),
  };
}

/** A compiled bundle; throws listing the problems when it does not compile. */
export function bundle(
  inputs: Omit<BundleInputs, 'resources'> & {
    resources: Array<Omit<BundleInputs['resources'][number], 'operations'>>;
  },
): PolicyBundle {
  const compiled = compileBundle({
    ...inputs,
    resources: inputs.resources.map((r) => ({
      ...r,
      operations: resourceKinds.get(r.descriptor.spec.type).operations(r.descriptor),
    })),
  });
  if (!compiled.ok)
    throw new Error(`bundle does not compile: ${JSON.stringify(compiled.problems)}`);
  return compiled.bundle;
}
