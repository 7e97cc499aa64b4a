import { describe, expect, it } from 'vitest';
import type { ResourceDescriptor } from '@tollgate/core';
import { Catalog } from '../src/catalog.js';
import type { VersionRecord } from '../src/records.js';

function record(
  name: string,
  version: number,
  options: { tenant?: string; labels?: Record<string, string>; deleted?: boolean } = {},
): VersionRecord {
  const tenant = options.tenant ?? 'a';
  return {
    tenant,
    environment: 'prod',
    name,
    version,
    previousVersion: version - 1,
    change: options.deleted ? 'deleted' : 'applied',
    deleted: options.deleted ?? false,
    hash: `h${version}`,
    descriptor: {
      metadata: {
        name,
        tenant,
        environment: 'prod',
        ...(options.labels ? { labels: options.labels } : {}),
      },
      spec: { type: 'elasticsearch' },
    } as unknown as ResourceDescriptor,
    createdAt: new Date(0),
    createdBy: 'op',
    rolledBackFrom: 0,
  };
}

const scope = { tenant: 'a', environment: 'prod' };
const query = { labels: {}, type: undefined, includeDeleted: false, after: undefined, limit: 10 };

describe('catalog', () => {
  it('catalog - lists one scope by name, pages after a name, and says when more follow', () => {
    const catalog = new Catalog();
    for (const name of ['res_c', 'res_a', 'res_b', 'res_d']) catalog.put(record(name, 1));
    catalog.put(record('res_a', 1, { tenant: 'b' }));
    const first = catalog.list(scope, { ...query, limit: 2 });
    expect(first.records.map((r) => r.name)).toEqual(['res_a', 'res_b']);
    expect(first.more).toBe(true);
    const second = catalog.list(scope, { ...query, after: 'res_b', limit: 2 });
    expect(second.records.map((r) => r.name)).toEqual(['res_c', 'res_d']);
    expect(second.more).toBe(false);
    expect(catalog.list({ tenant: 'b', environment: 'prod' }, query).records).toHaveLength(1);
    expect(catalog.list({ tenant: 'a', environment: 'dev' }, query).records).toEqual([]);
  });

  it('catalog - filters by every label, hides deleted unless asked, never goes back a version', () => {
    const catalog = new Catalog();
    catalog.put(record('res_a', 1, { labels: { domain: 'orders', tier: 'gold' } }));
    catalog.put(record('res_b', 1, { labels: { domain: 'orders' } }));
    catalog.put(record('res_c', 2, { deleted: true }));
    const labelled = catalog.list(scope, { ...query, labels: { domain: 'orders', tier: 'gold' } });
    expect(labelled.records.map((r) => r.name)).toEqual(['res_a']);
    expect(catalog.list(scope, query).records.map((r) => r.name)).toEqual(['res_a', 'res_b']);
    expect(catalog.list(scope, { ...query, includeDeleted: true }).records).toHaveLength(3);
    expect(catalog.put(record('res_c', 1))).toBe(false);
    expect(catalog.get('a/prod/res_c')?.deleted).toBe(true);
    expect(catalog.put(record('res_c', 3))).toBe(true);
    expect(catalog.size).toBe(3);
  });
});
