import { TollgateError } from '../errors/codes.js';
import type { Connector, ResourceKind } from './types.js';

/** The connectors a service runs with, looked up by resource kind. */
export interface ConnectorRegistry {
  /** The connector for `kind`; throws `INTERNAL` when none is registered. */
  get(kind: ResourceKind): Connector;
  has(kind: string): kind is ResourceKind;
  /** Registered kinds, sorted. */
  kinds(): ResourceKind[];
  /** Closes every connector's pooled connections. */
  close(): Promise<void>;
}

/**
 * Builds the registry from the single list of connectors a service is composed with, e.g.
 * `createConnectorRegistry([elasticsearchConnector])`. A kind registered twice is a start-up
 * error, not a silent override.
 */
export function createConnectorRegistry(connectors: readonly Connector[]): ConnectorRegistry {
  const byKind = new Map<string, Connector>();
  for (const connector of connectors) {
    if (byKind.has(connector.kind)) {
      throw new TollgateError(
        'INTERNAL',
        `Connector kind "${connector.kind}" is registered twice; each kind has exactly one connector.`,
      );
    }
    byKind.set(connector.kind, connector);
  }
  return {
    get(kind) {
      const connector = byKind.get(kind);
      if (connector === undefined) {
        throw new TollgateError('INTERNAL', `No connector is registered for kind "${kind}".`);
      }
      return connector;
    },
    has(kind): kind is ResourceKind {
      return byKind.has(kind);
    },
    kinds() {
      return [...byKind.keys()].sort() as ResourceKind[];
    },
    async close() {
      await Promise.all([...byKind.values()].map((connector) => connector.close()));
    },
  };
}
