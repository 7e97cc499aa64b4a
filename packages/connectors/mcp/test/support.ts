/**
 * Test helpers: mcp resources over real upstream servers (the npm servers and the hostile
 * test upstream), sandboxed with the folders their code needs, validated as the registry does.
 */
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createKindRegistry,
  describeDescriptorProblems,
  permissionsFromAccess,
  synthesizeTools,
  validateDescriptor,
} from '@tollgate/core';
import type {
  CredentialResolver,
  PermissionSet,
  ResourceDescriptor,
  ToolDefinition,
  VersionedResource,
} from '@tollgate/core';
import { discoverTools, mcpConnector, pinTools } from '../src/index.js';
import { operationOf } from '../src/kind/spec.js';
import type { McpCommand, McpSandbox, McpSpec, McpTool } from '../src/index.js';

export const HERE = dirname(fileURLToPath(import.meta.url));
const PACKAGE = dirname(HERE);
const REPO = join(PACKAGE, '..', '..', '..');
export const kinds = createKindRegistry([mcpConnector]);

/** Folders the sandboxed servers read: their code and the installed packages. */
export const CODE_PATHS = [
  HERE,
  join(PACKAGE, 'node_modules'),
  realpathSync(join(REPO, 'node_modules', '.pnpm')),
];

/** The command running an npm server's entry with this Node. */
export function npmServer(name: string, args: string[] = []): McpCommand {
  const entry = join(
    realpathSync(join(PACKAGE, 'node_modules', '@modelcontextprotocol', name)),
    'dist',
    'index.js',
  );
  return { executable: process.execPath, args: [entry, ...args] };
}

/** The command running the hostile test upstream in one mode. */
export function hostile(mode: string, ...args: string[]): McpCommand {
  return {
    executable: process.execPath,
    args: [join(HERE, 'upstreams', 'hostile.mjs'), mode, ...args],
  };
}

export function scratch(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** No credentials are named in these tests; one that is asked for is a test bug. */
export const noCredentials: CredentialResolver = async (ref) => {
  if (ref === 'env://TEST_TOKEN') return { kind: 'bearer', token: 'test-token-value' };
  throw new Error(`no credential ${ref}`);
};

/** A descriptor (not yet validated) of an mcp resource. */
export function mcpResource(
  name: string,
  command: McpCommand,
  tools: Record<string, McpTool>,
  options: {
    sandbox?: McpSandbox;
    fields?: McpSpec['schema']['fields'];
    readonly?: boolean;
    timeoutMs?: number;
  } = {},
): ResourceDescriptor<McpSpec> {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: {
      name,
      tenant: 'team-a',
      environment: 'test',
      description: `The ${name} test server.`,
    },
    spec: {
      type: 'mcp',
      connection: {
        command,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      },
      sandbox: { readPaths: CODE_PATHS, ...options.sandbox },
      tools,
      schema: { fields: options.fields ?? {} },
      access: { allowedRoles: ['support'], readonly: options.readonly ?? true },
    },
  };
}

/** Validates as the registry does; throws with every problem. */
export function validated(descriptor: ResourceDescriptor<McpSpec>, version = 1): VersionedResource {
  const result = validateDescriptor(descriptor, kinds);
  if (!result.ok) throw new Error(describeDescriptorProblems(result.problems));
  return { ...(result.descriptor as ResourceDescriptor), version };
}

/** Discovers the upstream and pins the selected tools, as confirmation does. */
export async function confirmed(
  descriptor: ResourceDescriptor<McpSpec>,
  version = 1,
): Promise<VersionedResource> {
  const discovered = await discoverTools(descriptor.spec, noCredentials);
  return validated({ ...descriptor, spec: pinTools(descriptor.spec, discovered) }, version);
}

/** Every argument of every selected tool declared settable. */
export function allArguments(resource: ResourceDescriptor<McpSpec>): McpSpec['schema']['fields'] {
  const fields: McpSpec['schema']['fields'] = {};
  for (const [name, tool] of Object.entries(resource.spec.tools)) {
    const properties = (tool.definition?.inputSchema.properties ?? {}) as Record<string, unknown>;
    for (const argument of Object.keys(properties))
      fields[`${operationOf(name, tool)}.${argument}`] = { type: 'argument', filterable: true };
  }
  return fields;
}

export function permissionsOf(resource: VersionedResource, roles = ['support']): PermissionSet {
  const permissions = permissionsFromAccess(
    resource,
    { roles, agent: 'agent-1' },
    mcpConnector.operations(resource),
  );
  if (permissions === undefined) throw new Error('no access');
  return permissions;
}

export function toolsOf(
  resource: VersionedResource,
  permissions = permissionsOf(resource),
): ToolDefinition[] {
  return synthesizeTools(resource, permissions, mcpConnector);
}

/** compile → execute → shape, as the executor runs them. */
export async function call(
  resource: VersionedResource,
  operation: string,
  args: unknown,
  permissions = permissionsOf(resource),
  maxBytes?: number,
) {
  const request = mcpConnector.compile(operation, args, {
    descriptor: resource,
    permissions,
    principal: { tenant: 'team-a', agent: 'agent-1' },
  });
  const upstream = await mcpConnector.execute(request, {
    descriptor: resource,
    credentials: noCredentials,
    backoffMs: 10,
  });
  return {
    request,
    upstream,
    shaped: mcpConnector.shape(operation, upstream, {
      descriptor: resource,
      permissions,
      request,
      ...(maxBytes === undefined ? {} : { maxBytes }),
    }),
  };
}
