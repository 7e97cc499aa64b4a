import { resourceKinds } from '@tollgate/kinds';
import { describe, expect, it } from 'vitest';
import { parsePublishedResource } from '@tollgate/core';
import { projectionValue, recordOf, validResource } from '../src/index.js';
import type { VersionRecord } from '../src/index.js';
import { resourceDescriptor } from './harness.js';

const descriptor = validResource(resourceDescriptor('team-a', 'es_orders'), resourceKinds);
const record: VersionRecord = {
  tenant: 'team-a',
  environment: 'prod',
  name: 'es_orders',
  version: 4,
  previousVersion: 3,
  change: 'rolled_back',
  deleted: false,
  hash: 'h4',
  descriptor,
  createdAt: new Date('2025-01-02T03:04:05.000Z'),
  createdBy: 'operator',
  rolledBackFrom: 2,
};
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe('projection value', () => {
  it('projection value - is a PublishedResource for other services and the whole version for the catalog', () => {
    const value = projectionValue(record);
    expect(parsePublishedResource(bytes(value))).toMatchObject({
      tenant: 'team-a',
      environment: 'prod',
      name: 'es_orders',
      version: 4,
      hash: 'h4',
      publishedAt: '2025-01-02T03:04:05.000Z',
    });
    expect(recordOf(bytes(value))).toEqual(record);
  });

  it('projection value - values that are not ours, incomplete or inconsistent give no record', () => {
    const value = projectionValue(record);
    const { registry: _registry, ...plain } = value;
    expect(recordOf(bytes(plain))).toBeUndefined();
    expect(
      recordOf(bytes({ ...value, registry: { ...value.registry, change: 'renamed' } })),
    ).toBeUndefined();
    expect(recordOf(bytes({ ...value, name: 'es_other' }))).toBeUndefined();
    expect(recordOf(new TextEncoder().encode('not json'))).toBeUndefined();
  });
});
