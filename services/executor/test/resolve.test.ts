import { describe, expect, it } from 'vitest';
import { descriptorHash } from '@tollgate/core';
import type { PublishedResource, ResourceDescriptor } from '@tollgate/core';
import { ResourceCatalog } from '@tollgate/kit';
import { resolveResource } from '../src/index.js';
import { ordersResource } from '../../../test/fixtures/orders.js';

const principal = { tenant: 'team-a', agent: 'support_bot', environment: 'prod' };
const scope = { tenant: 'team-a', environment: 'prod' };

function entry(descriptor: ResourceDescriptor, version = 1): Uint8Array {
  const { tenant, environment, name } = descriptor.metadata;
  const published: PublishedResource = {
    tenant,
    environment,
    name,
    version,
    hash: descriptorHash(descriptor),
    descriptor,
    publishedAt: '2026-01-01T00:00:00Z',
  };
  return new TextEncoder().encode(JSON.stringify(published));
}

const orders = ordersResource({ endpoint: 'http://es:9200', index: 'orders' });

describe('resolve - the resource a call names, from the KV projection', () => {
  it("resolve - a published resource is found in the caller's tenant and environment only", () => {
    const catalog = new ResourceCatalog();
    catalog.apply('team-a.prod.es_orders', entry(orders, 4));
    expect(resolveResource(catalog, principal, 'elasticsearch', 'es_orders').version).toBe(4);
    const elsewhere = [
      [{ ...principal, tenant: 'team-b' }, 'elasticsearch', 'es_orders'],
      [{ ...principal, environment: 'staging' }, 'elasticsearch', 'es_orders'],
      [principal, 'postgres', 'es_orders'],
      [principal, 'elasticsearch', 'es_customers'],
    ] as const;
    for (const [who, kind, name] of elsewhere) {
      expect(() => resolveResource(catalog, who, kind, name)).toThrow(
        `No resource named "${name}" is available to you; list tools to see what is.`,
      );
    }
  });

  it('resolve - entries that cannot be trusted make the resource unavailable', () => {
    const catalog = new ResourceCatalog();
    catalog.apply('team-a.prod.es_orders', entry(orders));
    const invalid = structuredClone(orders) as unknown as {
      spec: { access: Record<string, unknown> };
    };
    invalid.spec.access.superuser = true;
    catalog.apply('team-a.prod.es_orders', entry(invalid as unknown as ResourceDescriptor, 2));
    expect(catalog.get(scope, 'es_orders')).toBeUndefined();
    catalog.apply('team-a.prod.es_orders', entry(orders, 3));
    expect(catalog.get(scope, 'es_orders')?.version).toBe(3);
    catalog.apply('team-a.prod.other', entry(orders, 3));
    expect(catalog.get(scope, 'other')).toBeUndefined();
    catalog.apply('team-a.prod.es_orders', new TextEncoder().encode('not json'));
    expect(catalog.get(scope, 'es_orders')).toBeUndefined();
  });

  it('resolve - a deleted entry is gone at once', () => {
    const catalog = new ResourceCatalog();
    catalog.apply('team-a.prod.es_orders', entry(orders));
    catalog.apply('team-a.prod.es_orders', undefined);
    expect(catalog.get(scope, 'es_orders')).toBeUndefined();
  });
});
