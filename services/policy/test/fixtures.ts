import type { PublishedResource, ResourceDescriptor, ResourceSpec } from '@tollgate/core';

/** A published resource (as the registry projects it) with the orders schema. */
export function publishedResource(
  tenant: string,
  name: string,
  access: ResourceDescriptor['spec']['access'],
  options: { environment?: string; version?: number } = {},
): PublishedResource {
  const environment = options.environment ?? 'prod';
  const descriptor: ResourceDescriptor = {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name, tenant, environment },
    spec: {
      type: 'elasticsearch',
      connection: { endpoint: 'http://es.internal:9200', credentialRef: 'env://ES_KEY' },
      target: { index: name },
      schema: {
        fields: {
          id: { type: 'keyword', filterable: true, returnable: true },
          amount: { type: 'double', range: true, returnable: true },
          email: { type: 'keyword', filterable: true, returnable: true },
        },
      },
      access,
    } as ResourceSpec,
  };
  return {
    tenant,
    environment,
    name,
    version: options.version ?? 1,
    hash: `h${options.version ?? 1}`,
    descriptor,
    publishedAt: new Date().toISOString(),
  };
}
