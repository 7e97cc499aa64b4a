/**
 * The pure half of the http kind: what can be declared, the operations and tools a resource
 * offers. Operations come from the selected operations of the API's OpenAPI document.
 */
import { createRequire } from 'node:module';
import type { JsonSchema, ResourceKind, ResourceSpec } from '@tollgate/core';
import { httpOperations } from './operations.js';
import { httpRules, sameOrigin } from './rules.js';
import type { HttpSpec } from './spec.js';
import { offerHttpTools } from './tools.js';

const require = createRequire(import.meta.url);

/** The published schema of an http resource's `spec` (generated from spec.ts). */
export const httpSpecSchema = require('../../schema/spec.schema.json') as JsonSchema;

const asPartial = (spec: Partial<ResourceSpec>): Partial<HttpSpec> =>
  spec as unknown as Partial<HttpSpec>;

export const httpKind: ResourceKind = {
  type: 'http',
  title: 'HTTP API',
  specSchema: httpSpecSchema,
  specRules: httpRules,
  applyDefaults: () => undefined,
  credentialRefs: (spec) => {
    const ref = asPartial(spec).connection?.credentialRef;
    return typeof ref === 'string' ? [{ path: 'spec.connection.credentialRef', ref }] : [];
  },
  endpoints: (spec) => {
    const { connection, document } = asPartial(spec);
    const base = connection?.baseUrl;
    if (typeof base !== 'string') return [];
    const uses = [{ path: 'spec.connection.baseUrl', url: base }];
    const doc = typeof document?.url === 'string' ? sameOrigin(base, document.url) : undefined;
    if (doc !== undefined) uses.push({ path: 'spec.document.url', url: doc.href });
    const auth = connection?.auth;
    const token = auth?.scheme === 'oauth2' ? sameOrigin(base, auth.tokenUrl) : undefined;
    if (token !== undefined) uses.push({ path: 'spec.connection.auth.tokenUrl', url: token.href });
    return uses;
  },
  describeTarget: (spec) => {
    const { connection, operations } = asPartial(spec);
    const base = typeof connection?.baseUrl === 'string' ? connection.baseUrl : '(not given)';
    const ids = Object.values(operations ?? {}).map((op) => op.operationId);
    return `${ids.length === 0 ? '(no operations selected)' : ids.join(', ')} at ${base}`;
  },
  discoveryPaths: ['spec.connection.baseUrl', 'spec.document.url', 'spec.operations'],
  fieldFamily: (type) => type,
  operations: httpOperations,
  offerTools: offerHttpTools,
};
