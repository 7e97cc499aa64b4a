import { describe, expect, it } from 'vitest';
import { readCatalogEntry } from '@tollgate/kit';
import type { CatalogEntry } from '@tollgate/kit';
import { ToolCatalog, ToolSetCache, declaredOnly } from '../src/index.js';
import { published, resource } from './support/fixtures.js';

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const orders = (tenant = 'team-a', environment = 'prod', description = 'Orders of the shop') =>
  resource(tenant, 'es_orders', { environment, description });

describe('catalog - reading KV entries', () => {
  it('catalog - a published resource becomes an entry with its kind and call subject', () => {
    const entry = readCatalogEntry('team-a.prod.es_orders', bytes(published(orders(), 3)));
    expect(entry).toMatchObject({
      key: 'team-a.prod.es_orders',
      version: 3,
      kind: 'elasticsearch',
      callSubject: 'tollgate.v1.call.elasticsearch.es_orders',
      resource: { version: 3, metadata: { name: 'es_orders' } },
    });
  });

  it('catalog - entries that are not what their key says, or not valid, are refused with a reason', () => {
    expect(readCatalogEntry('team-a.prod.es_orders', bytes({ nope: 1 }))).toEqual({
      invalid: 'tenant is not a string',
    });
    expect(readCatalogEntry('team-b.prod.es_orders', bytes(published(orders(), 1)))).toEqual({
      invalid: 'entry for team-a.prod.es_orders is stored under team-b.prod.es_orders',
    });
    const secret = orders();
    (secret.spec.connection as { credentialRef: string }).credentialRef = 'hunter2hunter2hunter2';
    const refused = readCatalogEntry('team-a.prod.es_orders', bytes(published(secret, 1)));
    expect('invalid' in refused && refused.invalid).toMatch(
      /^descriptor is invalid: spec\.connection\.credentialRef/,
    );
    expect(JSON.stringify(refused)).not.toContain('hunter2');
    const renamed = { ...published(orders(), 1), name: 'es_other' };
    expect(readCatalogEntry('team-a.prod.es_other', bytes(renamed))).toEqual({
      invalid: 'descriptor names team-a/prod/es_orders, not team-a/prod/es_other',
    });
  });
});

describe('catalog - scopes', () => {
  it('catalog - lookups and searches never leave their scope', () => {
    const catalog = new ToolCatalog();
    for (const [tenant, environment] of [
      ['team-a', 'prod'],
      ['team-a', 'staging'],
      ['team-b', 'prod'],
    ] as const) {
      const change = catalog.apply(
        `${tenant}.${environment}.es_orders`,
        bytes(published(orders(tenant, environment), 1)),
      );
      expect(change.kind).toBe('added');
    }
    const scope = { tenant: 'team-a', environment: 'prod' };
    expect(catalog.search(scope, 'orders', { topK: 10 }).map((h) => h.entry.key)).toEqual([
      'team-a.prod.es_orders',
    ]);
    expect(catalog.byToolName(scope, 'es_orders_count')).toMatchObject({
      operation: 'count',
      entry: { key: 'team-a.prod.es_orders' },
    });
    expect(catalog.byToolName({ tenant: 'team-c', environment: 'prod' }, 'es_orders_count')).toBe(
      undefined,
    );
    expect(catalog.apply('team-a.prod.es_orders', undefined)).toEqual({
      kind: 'removed',
      key: 'team-a.prod.es_orders',
    });
    expect(catalog.search(scope, 'orders', { topK: 10 })).toEqual([]);
    expect(catalog.inScope({ tenant: 'team-a', environment: 'staging' })).toHaveLength(1);
  });

  it('catalog - the same version and hash again changes nothing; a bad value withdraws the old one', () => {
    const catalog = new ToolCatalog();
    const key = 'team-a.prod.es_orders';
    catalog.apply(key, bytes(published(orders(), 1)));
    expect(catalog.apply(key, bytes(published(orders(), 1)))).toEqual({ kind: 'unchanged' });
    expect(catalog.apply(key, bytes(published(orders('team-a', 'prod', 'New text'), 2))).kind).toBe(
      'updated',
    );
    expect(catalog.apply(key, bytes('garbage'))).toMatchObject({ kind: 'rejected', removed: true });
    expect(catalog.size).toBe(0);
  });
});

describe('tool cache', () => {
  const entryOf = (version: number): CatalogEntry => {
    const entry = readCatalogEntry('team-a.prod.es_orders', bytes(published(orders(), version)));
    if ('invalid' in entry) throw new Error(entry.invalid);
    return entry;
  };
  const permissions = {
    operations: ['search', 'count'] as ('search' | 'count')[],
    visibleFields: ['id', 'amount', 'gone'],
    filterableFields: ['id', 'gone'],
    limitCap: 50,
  };

  it('tool cache - one synthesis per (resource version × permission set); purge drops a resource', () => {
    const cache = new ToolSetCache(10);
    const v1 = entryOf(1);
    const first = cache.toolSet(v1, permissions);
    expect(cache.toolSet(v1, { ...permissions })).toBe(first);
    expect(first.tools.map((t) => t.name)).toEqual(['es_orders_search', 'es_orders_count']);
    expect(first.wire('openai')).toBe(first.wire('openai'));
    const v2 = cache.toolSet(entryOf(2), permissions);
    expect(v2).not.toBe(first);
    expect(cache.size).toBe(2);
    cache.purge('team-a.prod.es_orders');
    expect(cache.size).toBe(0);
  });

  it('tool cache - least recently used sets go first', () => {
    const cache = new ToolSetCache(2);
    const a = cache.toolSet(entryOf(1), permissions);
    cache.toolSet(entryOf(2), permissions);
    cache.toolSet(entryOf(1), permissions);
    cache.toolSet(entryOf(3), permissions);
    expect(cache.size).toBe(2);
    expect(cache.toolSet(entryOf(1), permissions)).toBe(a);
  });

  it('tool cache - permissions naming undeclared fields are narrowed to declared ones', () => {
    expect(declaredOnly(entryOf(1), permissions)).toEqual({
      operations: ['search', 'count'],
      visibleFields: ['id', 'amount'],
      filterableFields: ['id'],
      limitCap: 50,
    });
  });
});
