import { canonicalHash } from '@tollgate/core';
import type { Connector, ResourceSpec } from '@tollgate/core';
import type { McpRequest } from './call/compile.js';
import { compileRequest } from './call/compile.js';
import { executor } from './call/execute.js';
import { shapeResult } from './call/shape.js';
import { mcpKind } from './kind/kind.js';
import type { McpSpec } from './kind/spec.js';
import { discoverSchema, pinSelected } from './upstream/discover.js';
import { SessionPool } from './upstream/pool.js';

/** The sessions of this process's mcp connector (one per resource version and tenant). */
export const mcpSessions = new SessionPool();

/** The mcp kind with its connector: one entry in the list of kinds. */
export const mcpConnector: Connector<McpRequest, ResourceSpec> = {
  ...mcpKind,
  discover: (spec, credentials) => discoverSchema(spec as unknown as McpSpec, credentials),
  compile: compileRequest,
  execute: executor(mcpSessions),
  shape: shapeResult,
  close: () => mcpSessions.close(),
  onWithdrawal: (listener) => {
    mcpSessions.onWithdraw =
      listener === undefined
        ? undefined
        : (descriptor, withdrawal) =>
            listener({
              tenant: descriptor.metadata.tenant,
              environment: descriptor.metadata.environment,
              resource: descriptor.metadata.name,
              operation: withdrawal.operation,
              specHash: canonicalHash(descriptor.spec),
              changes: withdrawal.changes,
            });
  },
  pinOnConfirm: (spec, credentials) =>
    pinSelected(spec as unknown as McpSpec, credentials) as Promise<ResourceSpec | undefined>,
};
