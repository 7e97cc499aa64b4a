/** Published resources as the registry projects them, for catalog tests. */
import { descriptorHash } from '@tollgate/core';
import type { PublishedResource, ResourceDescriptor } from '@tollgate/core';
import { ordersResource } from '../../../../test/fixtures/orders.js';

export function descriptor(tenant: string, environment: string, name: string): ResourceDescriptor {
  const d = structuredClone(ordersResource({ endpoint: 'http://es:9200', index: 'orders' }));
  d.metadata = { ...d.metadata, tenant, environment, name };
  return d;
}

export function published(d: ResourceDescriptor, version = 1): PublishedResource {
  const { tenant, environment, name } = d.metadata;
  return {
    tenant,
    environment,
    name,
    version,
    hash: descriptorHash(d),
    descriptor: d,
    publishedAt: '2026-01-01T00:00:00Z',
  };
}
