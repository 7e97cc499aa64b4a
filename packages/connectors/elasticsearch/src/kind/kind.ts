/**
 * The pure half of the Elasticsearch kind: what can be declared, the operations and tools a
 * resource offers. The CLI, the SDK and the console read this; services add the connector.
 */
import { createRequire } from 'node:module';
import { offerTableTools, tableOperations } from '@tollgate/core';
import type { JsonSchema, ResourceDescriptor, ResourceKind, ResourceSpec } from '@tollgate/core';
import { elasticsearchModel, fieldFamily } from './model.js';
import { readElasticsearchMention } from './conversation.js';
import { elasticsearchRules } from './rules.js';
import type { ElasticsearchSpec } from './spec.js';

const require = createRequire(import.meta.url);

/** The published schema of an Elasticsearch resource's `spec` (generated from spec.ts). */
export const elasticsearchSpecSchema = require('../../schema/spec.schema.json') as JsonSchema;

const asPartial = (spec: Partial<ResourceSpec>): Partial<ElasticsearchSpec> =>
  spec as unknown as Partial<ElasticsearchSpec>;

export const elasticsearchKind: ResourceKind = {
  type: 'elasticsearch',
  title: 'Elasticsearch index',
  specSchema: elasticsearchSpecSchema,
  specRules: elasticsearchRules,
  applyDefaults: () => undefined,
  credentialRefs: (spec) => {
    const ref = asPartial(spec).connection?.credentialRef;
    return typeof ref === 'string' ? [{ path: 'spec.connection.credentialRef', ref }] : [];
  },
  endpoints: (spec) => {
    const url = asPartial(spec).connection?.endpoint;
    return typeof url === 'string' ? [{ path: 'spec.connection.endpoint', url }] : [];
  },
  describeTarget: (spec) => {
    const { target, connection } = asPartial(spec);
    const index = typeof target?.index === 'string' ? `"${target.index}"` : '(not given)';
    const endpoint = typeof connection?.endpoint === 'string' ? connection.endpoint : '(not given)';
    return `${index} at ${endpoint}`;
  },
  discoveryPaths: ['spec.connection.endpoint', 'spec.target.index'],
  fieldFamily,
  operations: (descriptor: ResourceDescriptor) => tableOperations(descriptor, elasticsearchModel),
  offerTools: (request) => offerTableTools(request, elasticsearchModel),
  readFromText: readElasticsearchMention,
};
