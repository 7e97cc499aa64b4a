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
  ResourceDescriptor,
  ShapedResult,
  ToolDefinition,
  VersionedResource,
} from '@tollgate/core';

import { directusAccess } from '../../../../test/support/infra.js';
import { httpConnector } from '../src/index.js';
import type { HttpSpec } from '../src/index.js';

export const directus = directusAccess();
process.env['TG_HTTP_DIRECTUS_TOKEN'] = directus.token;

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

/** The ticket resource as an operator declares it (before discovery fills in the operations). */
export function ticketsDeclared(overrides: Partial<HttpSpec> = {}): Record<string, unknown> {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: {
      name: 'support_tickets',
      tenant: 'acme',
      environment: 'test',
      description: 'Support tickets in the help desk',
    },
    spec: {
      type: 'http',
      connection: {
        baseUrl: directus.url,
        credentialRef: 'env://TG_HTTP_DIRECTUS_TOKEN',
        auth: { scheme: 'bearer' },
        timeoutMs: 5000,
      },
      document: { url: '/server/specs/oas' },
      operations: {
        list_tickets: { operationId: 'readItemsTickets', pinned: { fields: ['*'] } },
        get_ticket: { operationId: 'readSingleItemsTickets', pinned: { fields: ['*'] } },
        open_ticket: {
          operationId: 'createItemsTickets',
          pinned: { 'body.status': 'open', 'body.channel': 'chat' },
          records: '/data',
        },
        update_ticket: { operationId: 'updateSingleItemsTickets', pinned: { fields: ['*'] } },
      },
      schema: {
        fields: {
          id: { type: 'integer', filterable: true, returnable: true },
          search: { type: 'string', filterable: true },
          subject: { type: 'string', filterable: true, returnable: true },
          description: { type: 'string', filterable: true, returnable: true },
          status: { type: 'string', returnable: true },
          priority: { type: 'string', filterable: true, returnable: true },
          requester_email: { type: 'string', filterable: true, returnable: true },
          requester_name: { type: 'string', returnable: true },
          assignee: { type: 'string', returnable: true },
          due_date: { type: 'string', filterable: true, returnable: true },
        },
      },
      access: {
        allowedRoles: ['support', 'lead'],
        readonly: false,
        maxLimit: 50,
        fieldRoles: { assignee: ['lead'] },
        redact: { requester_email: { rule: 'mask', exceptRoles: ['lead'] } },
      },
      ...overrides,
    },
  };
}

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
export function principal(resource: VersionedResource, roles: string[], agent = 'support-bot') {
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
      });
      return httpConnector.shape(operation, upstream, {
        descriptor: resource,
        permissions,
        request: compiled,
      });
    },
  };
}

/** Directus as its admin, for setting up and tearing down what tests need. */
export async function adminToken(): Promise<string> {
  const res = await fetch(`${directus.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: directus.adminEmail, password: directus.adminPassword }),
  });
  const body = (await res.json()) as { data: { access_token: string } };
  return body.data.access_token;
}
