import { TollgateError } from '../errors/codes.js';
import type { Connector } from '../connector/types.js';
import type { ResourceKind } from './kind.js';

/** The kinds a process knows, looked up by `spec.type`. */
export interface KindRegistry<K extends ResourceKind = ResourceKind> {
  /** The kind of `type`; throws `INTERNAL` when none is registered. */
  get(type: string): K;
  /** The kind of `type`, if registered. */
  find(type: string): K | undefined;
  has(type: string): boolean;
  /** Registered types, sorted. */
  types(): string[];
  /** Registered kinds, in registration order. */
  list(): readonly K[];
}

/** The connectors a service runs with, by kind. */
export interface ConnectorRegistry extends KindRegistry<Connector> {
  /** Closes every connector's pooled connections. */
  close(): Promise<void>;
}

/**
 * Builds the registry from the single list of kinds a process is composed with. A type
 * registered twice is a start-up error, not a silent override.
 */
export function createKindRegistry<K extends ResourceKind>(kinds: readonly K[]): KindRegistry<K> {
  const byType = new Map<string, K>();
  for (const kind of kinds) {
    if (byType.has(kind.type)) {
      throw new TollgateError(
        'INTERNAL',
        `Resource kind "${kind.type}" is registered twice; each kind has exactly one entry.`,
      );
    }
    byType.set(kind.type, kind);
  }
  const list = Object.freeze([...kinds]);
  return {
    get(type) {
      const kind = byType.get(type);
      if (kind === undefined) {
        throw new TollgateError('INTERNAL', `No resource kind "${type}" is registered.`);
      }
      return kind;
    },
    find: (type) => byType.get(type),
    has: (type) => byType.has(type),
    types: () => [...byType.keys()].sort(),
    list: () => list,
  };
}

/** `createKindRegistry` over connectors, with `close`. */
export function createConnectorRegistry(connectors: readonly Connector[]): ConnectorRegistry {
  const registry = createKindRegistry(connectors);
  return {
    ...registry,
    async close() {
      await Promise.all(connectors.map((connector) => connector.close()));
    },
  };
}
