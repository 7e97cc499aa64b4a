import { describe, expect, it } from 'vitest';

import { createConnectorRegistry } from '../src/connector/registry.js';
import type { Connector } from '../src/connector/types.js';

function fakeConnector(closed: string[] = []): Connector {
  const unused = (): never => {
    throw new Error('not used');
  };
  return {
    kind: 'elasticsearch',
    operations: () => ['search'],
    discover: unused,
    compile: unused,
    execute: unused,
    shape: unused,
    close: async () => {
      closed.push('elasticsearch');
    },
  };
}

describe('connector registry', () => {
  it('registry - looks connectors up by kind', () => {
    const connector = fakeConnector();
    const registry = createConnectorRegistry([connector]);
    expect(registry.get('elasticsearch')).toBe(connector);
    expect(registry.has('elasticsearch')).toBe(true);
    expect(registry.has('postgres')).toBe(false);
    expect(registry.kinds()).toEqual(['elasticsearch']);
  });

  it('registry - a kind registered twice fails at start-up', () => {
    expect(() => createConnectorRegistry([fakeConnector(), fakeConnector()])).toThrow(
      expect.objectContaining({
        code: 'INTERNAL',
        message:
          'Connector kind "elasticsearch" is registered twice; each kind has exactly one connector.',
      }),
    );
  });

  it('registry - an unknown kind is an internal error naming it', () => {
    expect(() => createConnectorRegistry([]).get('elasticsearch')).toThrow(
      expect.objectContaining({
        code: 'INTERNAL',
        message: 'No connector is registered for kind "elasticsearch".',
      }),
    );
  });

  it('registry - close closes every connector', async () => {
    const closed: string[] = [];
    await createConnectorRegistry([fakeConnector(closed)]).close();
    expect(closed).toEqual(['elasticsearch']);
  });
});
