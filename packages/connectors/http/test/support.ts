import { readFile } from 'node:fs/promises';

import {
  applyDescriptorDefaults,
  createKindRegistry,
  mergeSchema,
  parseCredentialSecret,
  permissionsFromAccess,
  synthesizeTools,
  validateDescriptor,
  validateToolArguments,
} from '@tollgate/core';
import type {
  CredentialResolver,
  DiscoveredSchema,
  EgressGuard,
  ResourceDescriptor,
  ShapedResult,
  ToolDefinition,
  VersionedResource,
} from '@tollgate/core';

import { httpConnector } from '../src/index.js';

/** `env://VAR` and `file://path` hold the secret format `parseCredentialSecret` documents. */
export const testCredentials: CredentialResolver = async (ref) => {
  if (ref.startsWith('env://')) {
    const value = process.env[ref.slice('env://'.length)];
    if (value === undefined) throw new Error(`unset ${ref}`);
    return parseCredentialSecret(value);
  }
  if (ref.startsWith('file://'))
    return parseCredentialSecret(await readFile(ref.slice('file://'.length), 'utf8'));
  throw new Error(`unsupported ref scheme in ${ref}`);
};

const kinds = createKindRegistry([httpConnector]);

/** What the registry does with a discovery: spec values written, fields merged, validated. */
export function applyDiscovery(
  declared: Record<string, unknown>,
  schema: DiscoveredSchema,
): VersionedResource {
  const descriptor = structuredClone(declared) as {
    spec: Record<string, unknown> & { schema: { fields: Record<string, never> } };
  };
  for (const { path, value } of schema.specValues ?? []) {
    let node = descriptor.spec as Record<string, unknown>;
    for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[path.at(-1) as string] = structuredClone(value);
  }
  const merged = mergeSchema(descriptor.spec.schema.fields, schema);
  descriptor.spec.schema.fields = merged.fields as Record<string, never>;
  const result = validateDescriptor(descriptor, kinds);
  if (!result.ok) throw new Error(`invalid after discovery: ${JSON.stringify(result.problems)}`);
  return {
    ...(applyDescriptorDefaults(result.descriptor, kinds) as ResourceDescriptor),
    version: 1,
  };
}

/** The tools one principal gets, and a call through validate → compile → execute → shape. */
export function principal(
  resource: VersionedResource,
  roles: string[],
  agent = 'support-bot',
  egress?: EgressGuard,
) {
  const operations = httpConnector.operations(resource);
  const permissions = permissionsFromAccess(resource, { roles, agent }, operations);
  if (permissions === undefined) throw new Error('no access');
  const tools = synthesizeTools(resource, permissions, httpConnector);
  const tool = (operation: string): ToolDefinition => {
    const found = tools.find((t) => t.operation === operation);
    if (found === undefined) throw new Error(`no tool for ${operation}`);
    return found;
  };
  return {
    permissions,
    tools,
    tool,
    async call(operation: string, args: Record<string, unknown>): Promise<ShapedResult> {
      const validation = validateToolArguments(tool(operation), args);
      if (!validation.ok)
        throw Object.assign(new Error(`arguments invalid: ${JSON.stringify(validation.details)}`), {
          details: validation.details,
        });
      const compiled = httpConnector.compile(operation, validation.args, {
        descriptor: resource,
        permissions,
        principal: { tenant: 'acme', agent },
      });
      const upstream = await httpConnector.execute(compiled, {
        descriptor: resource,
        credentials: testCredentials,
        deadline: Date.now() + 10_000,
        ...(egress === undefined ? {} : { egress }),
      });
      return httpConnector.shape(operation, upstream, {
        descriptor: resource,
        permissions,
        request: compiled,
      });
    },
  };
}
