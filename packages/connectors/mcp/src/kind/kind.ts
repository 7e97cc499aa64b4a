/**
 * The pure half of the mcp kind: what can be declared, the operations and tools a resource
 * offers. The CLI, the SDK and the console read this; services add the connector.
 */
import { createRequire } from 'node:module';
import type { JsonSchema, ResourceKind, ResourceSpec } from '@tollgate/core';
import { mcpRules } from './rules.js';
import type { McpSpec } from './spec.js';
import { mcpOperations, offerMcpTools } from './tools.js';

const require = createRequire(import.meta.url);

/** The published schema of an mcp resource's `spec` (generated from spec.ts). */
export const mcpSpecSchema = require('../../schema/spec.schema.json') as JsonSchema;

const asPartial = (spec: Partial<ResourceSpec>): Partial<McpSpec> =>
  spec as unknown as Partial<McpSpec>;

export const mcpKind: ResourceKind = {
  type: 'mcp',
  title: 'MCP server',
  specSchema: mcpSpecSchema,
  specRules: mcpRules,
  applyDefaults: () => undefined,
  credentialRefs: (spec) => {
    const { connection } = asPartial(spec);
    const uses = Object.entries(connection?.command?.env ?? {})
      .filter(([, ref]) => typeof ref === 'string')
      .map(([name, ref]) => ({ path: `spec.connection.command.env.${name}`, ref }));
    const bearer = connection?.credentialRef;
    const secret = connection?.oauth?.clientSecretRef;
    return [
      ...(typeof bearer === 'string'
        ? [{ path: 'spec.connection.credentialRef', ref: bearer }]
        : []),
      ...(typeof secret === 'string'
        ? [{ path: 'spec.connection.oauth.clientSecretRef', ref: secret }]
        : []),
      ...uses,
    ];
  },
  endpoints: (spec) => {
    const { url, oauth } = asPartial(spec).connection ?? {};
    return [
      ...(typeof url === 'string' ? [{ path: 'spec.connection.url', url }] : []),
      ...(typeof oauth?.tokenUrl === 'string'
        ? [{ path: 'spec.connection.oauth.tokenUrl', url: oauth.tokenUrl }]
        : []),
    ];
  },
  describeTarget: (spec) => {
    const { connection, tools } = asPartial(spec);
    const selected = Object.keys(tools ?? {}).length;
    const where =
      typeof connection?.url === 'string'
        ? `at ${connection.url}`
        : typeof connection?.command?.executable === 'string'
          ? `run as ${[connection.command.executable, ...(connection.command.args ?? [])].join(' ')}`
          : '(not given)';
    return `${where}, ${selected} tool${selected === 1 ? '' : 's'} selected`;
  },
  discoveryPaths: ['spec.connection'],
  fieldFamily: () => 'argument',
  operations: mcpOperations,
  offerTools: offerMcpTools,
};
