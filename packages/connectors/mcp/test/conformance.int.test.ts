/**
 * The kind-neutral conformance suite for the mcp kind, on the npm reference server
 * `server-everything` run in the sandbox: its echo tool selected, pinned and read.
 */
import { afterAll } from 'vitest';
import type { CredentialResolver, VersionedResource } from '@tollgate/core';
import { KIND_CANARY, runKindConformance } from '../../../core/test/kind-conformance.js';
import { mcpConnector, mcpSessions } from '../src/index.js';
import type { McpSpec } from '../src/index.js';
import { allArguments, confirmed, mcpResource, noCredentials, npmServer } from './support.js';

const CANARY_REF = 'env://TG_MCP_CONFORMANCE_CANARY';
const credentials: CredentialResolver = async (ref) =>
  ref === CANARY_REF ? { kind: 'apiKey', apiKey: KIND_CANARY } : noCredentials(ref);

afterAll(() => mcpSessions.close());

runKindConformance(mcpConnector, {
  async resource() {
    const draft = mcpResource('everything', npmServer('server-everything', ['stdio']), {
      echo: { class: 'read' },
    });
    const pinned = await confirmed(draft);
    return confirmed({
      ...draft,
      spec: {
        ...(pinned.spec as unknown as McpSpec),
        schema: { fields: allArguments(pinned as never) },
      },
    });
  },
  roles: ['support'],
  read: { operation: 'echo', args: { message: 'conformance' } },
  credentials,
  unreachable: (resource: VersionedResource): VersionedResource => {
    const spec = resource.spec as unknown as McpSpec;
    return {
      ...resource,
      spec: {
        ...spec,
        connection: {
          ...spec.connection,
          command: {
            executable: '/nonexistent/mcp-server',
            env: { SERVER_TOKEN: CANARY_REF },
          },
        },
      },
    } as unknown as VersionedResource;
  },
});
