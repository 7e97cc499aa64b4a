import { describe, expect, it } from 'vitest';
import { ResourceCatalog, readCatalogEntry } from '../src/index.js';
import { descriptor, published } from './support/resources.js';

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe('resource catalog - reading entries', () => {
  it('resource catalog - an entry carries its key, kind, call subject and versioned descriptor', () => {
    const entry = readCatalogEntry(
      'team-a.prod.es_orders',
      bytes(published(descriptor('team-a', 'prod', 'es_orders'), 3)),
    );
    expect(entry).toMatchObject({
      key: 'team-a.prod.es_orders',
      tenant: 'team-a',
      version: 3,
      kind: 'elasticsearch',
      callSubject: 'tollgate.v1.call.elasticsearch.es_orders',
      resource: { version: 3, metadata: { name: 'es_orders' } },
    });
  });

  it('resource catalog - without validation an invalid descriptor is read, but the key and names are still checked', () => {
    const d = descriptor('team-a', 'prod', 'es_orders');
    (d.spec.access as { allowedRoles: string[] }).allowedRoles = [];
    const value = bytes(published(d));
    expect(readCatalogEntry('team-a.prod.es_orders', value)).toEqual({
      invalid: expect.stringMatching(
        /^descriptor is invalid: spec\.access\.allowedRoles/,
      ) as string,
    });
    expect(readCatalogEntry('team-a.prod.es_orders', value, { validate: false })).toMatchObject({
      key: 'team-a.prod.es_orders',
    });
    expect(readCatalogEntry('team-b.prod.es_orders', value, { validate: false })).toEqual({
      invalid: 'entry for team-a.prod.es_orders is stored under team-b.prod.es_orders',
    });
    const renamed = { ...published(d), name: 'es_other' };
    expect(readCatalogEntry('team-a.prod.es_other', bytes(renamed), { validate: false })).toEqual({
      invalid: 'descriptor names team-a/prod/es_orders, not team-a/prod/es_other',
    });
  });

  it('resource catalog - scopes and tenants are kept apart; a bad value withdraws what its key held', () => {
    const catalog = new ResourceCatalog();
    for (const [tenant, environment, name] of [
      ['team-a', 'prod', 'es_users'],
      ['team-a', 'prod', 'es_orders'],
      ['team-a', 'staging', 'es_orders'],
      ['team-b', 'prod', 'es_orders'],
    ] as const) {
      const change = catalog.apply(
        `${tenant}.${environment}.${name}`,
        bytes(published(descriptor(tenant, environment, name))),
      );
      expect(change.kind).toBe('added');
    }
    const prod = { tenant: 'team-a', environment: 'prod' };
    expect(catalog.inScope(prod).map((e) => e.name)).toEqual(['es_orders', 'es_users']);
    expect(catalog.get({ tenant: 'team-c', environment: 'prod' }, 'es_orders')).toBeUndefined();
    expect(catalog.ofTenant('team-a').map((e) => e.key)).toEqual([
      'team-a.prod.es_orders',
      'team-a.prod.es_users',
      'team-a.staging.es_orders',
    ]);
    expect(catalog.tenants().sort()).toEqual(['team-a', 'team-b']);
    expect(catalog.apply('team-b.prod.es_orders', bytes('garbage'))).toMatchObject({
      kind: 'rejected',
      removed: true,
    });
    expect(catalog.tenants()).toEqual(['team-a']);
    expect(catalog.apply('team-a.prod.es_users', undefined)).toEqual({
      kind: 'removed',
      key: 'team-a.prod.es_users',
    });
    expect(catalog.scopeSize(prod)).toBe(1);
    expect(catalog.size).toBe(2);
  });
});
