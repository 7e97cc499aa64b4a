/**
 * The kind-neutral conformance suite for the http kind, on the real Directus: the ticket
 * resource as discovery and confirmation save it, read by a support agent.
 */
import type { CredentialResolver, VersionedResource } from '@tollgate/core';
import { KIND_CANARY, runKindConformance } from '../../../core/test/kind-conformance.js';
import { httpConnector } from '../src/index.js';
import type { HttpSpec } from '../src/index.js';
import { ticketsDeclared } from './directus.js';
import { applyDiscovery, testCredentials } from './support.js';

const CANARY_REF = 'env://TG_HTTP_CONFORMANCE_CANARY';
const credentials: CredentialResolver = async (ref) =>
  ref === CANARY_REF ? { kind: 'bearer', token: KIND_CANARY } : testCredentials(ref);

runKindConformance(httpConnector, {
  async resource() {
    const declared = ticketsDeclared();
    return applyDiscovery(
      declared,
      await httpConnector.discover(declared['spec'] as never, credentials),
    );
  },
  roles: ['support'],
  read: { operation: 'list_tickets', args: { limit: 2 } },
  credentials,
  unreachable: (resource: VersionedResource): VersionedResource => {
    const spec = resource.spec as unknown as HttpSpec;
    return {
      ...resource,
      spec: {
        ...spec,
        connection: {
          ...spec.connection,
          baseUrl: 'http://127.0.0.1:9',
          credentialRef: CANARY_REF,
        },
      },
    } as unknown as VersionedResource;
  },
});
