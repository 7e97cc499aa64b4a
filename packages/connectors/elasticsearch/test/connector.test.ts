import { describe, expect, it } from 'vitest';
import { createConnectorRegistry } from '@tollgate/core';

import { elasticsearchConnector } from '../src/index.js';
import { ordersDescriptor } from './fixtures.js';

describe('elasticsearch connector', () => {
  it('connector - registers under its kind in the service registry', () => {
    const registry = createConnectorRegistry([elasticsearchConnector]);
    expect(registry.get('elasticsearch')).toBe(elasticsearchConnector);
    expect(() => createConnectorRegistry([elasticsearchConnector, elasticsearchConnector])).toThrow(
      expect.objectContaining({ code: 'INTERNAL' }),
    );
  });

  it('connector - operations follow the read-only flag', () => {
    expect(
      elasticsearchConnector.operations(ordersDescriptor({ readonly: false })).map((op) => op.name),
    ).toEqual(['search', 'get', 'count', 'aggregate', 'write']);
    const defaults = ordersDescriptor();
    delete defaults.spec.access.readonly;
    expect(elasticsearchConnector.operations(defaults).map((op) => op.name)).toEqual([
      'search',
      'get',
      'count',
      'aggregate',
    ]);
  });
});
