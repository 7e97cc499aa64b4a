import { describe, expect, it } from 'vitest';

import { createConnectorRegistry, createKindRegistry } from '../src/index.js';
import type { Connector } from '../src/index.js';
import { sampleKind } from './support/sample-kind.js';

function sampleConnector(closed: string[] = []): Connector {
  const unused = (): never => {
    throw new Error('not used');
  };
  return {
    ...sampleKind,
    discover: unused,
    compile: unused,
    execute: unused,
    shape: unused,
    close: async () => {
      closed.push(sampleKind.type);
    },
  };
}

describe('kind registry', () => {
  it('registry - looks kinds up by spec.type', () => {
    const registry = createKindRegistry([sampleKind]);
    expect(registry.get('sample')).toBe(sampleKind);
    expect(registry.find('sample')).toBe(sampleKind);
    expect(registry.find('other')).toBeUndefined();
    expect(registry.has('sample')).toBe(true);
    expect(registry.has('other')).toBe(false);
    expect(registry.types()).toEqual(['sample']);
    expect(registry.list()).toEqual([sampleKind]);
  });

  it('registry - a kind registered twice fails at start-up', () => {
    expect(() => createKindRegistry([sampleKind, { ...sampleKind }])).toThrow(
      expect.objectContaining({
        code: 'INTERNAL',
        message: 'Resource kind "sample" is registered twice; each kind has exactly one entry.',
      }),
    );
  });

  it('registry - an unknown kind is an internal error naming it', () => {
    expect(() => createKindRegistry([sampleKind]).get('other')).toThrow(
      expect.objectContaining({
        code: 'INTERNAL',
        message: 'No resource kind "other" is registered.',
      }),
    );
  });

  it('registry - closing the connector registry closes every connector', async () => {
    const closed: string[] = [];
    await createConnectorRegistry([sampleConnector(closed)]).close();
    expect(closed).toEqual(['sample']);
  });
});
