/** A small OpenAPI document and an http resource over it, for tests without a server. */
import {
  applyDescriptorDefaults,
  createKindRegistry,
  mergeSchema,
  validateDescriptor,
} from '@tollgate/core';
import type { ResourceDescriptor, VersionedResource } from '@tollgate/core';
import { httpConnector } from '../src/index.js';
import { describeSelection, readDocument } from '../src/index.js';

export const kinds = createKindRegistry([httpConnector]);

export const ticketDocument = {
  openapi: '3.1.0',
  info: { title: 'Tickets', version: '2' },
  components: {
    schemas: {
      Ticket: {
        type: 'object',
        required: ['subject'],
        properties: {
          id: { type: 'integer' },
          subject: { type: 'string', maxLength: 200 },
          status: { type: 'string', enum: ['open', 'closed'] },
          secret_note: { type: 'string' },
          owner: { type: ['string', 'null'] },
        },
      },
    },
  },
  paths: {
    '/tickets': {
      get: {
        operationId: 'listTickets',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
          { name: 'offset', in: 'query', schema: { type: 'integer' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
          { name: 'X-Tenant', in: 'header', schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    data: { type: 'array', items: { $ref: '#/components/schemas/Ticket' } },
                  },
                },
              },
            },
          },
        },
      },
      post: {
        operationId: 'createTicket',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Ticket' } } },
        },
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { data: { $ref: '#/components/schemas/Ticket' } },
                },
              },
            },
          },
        },
      },
    },
    '/tickets/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      put: {
        operationId: 'replaceTicket',
        requestBody: {
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Ticket' } } },
        },
        responses: { '204': { description: 'done' } },
      },
      patch: {
        operationId: 'updateTicket',
        requestBody: {
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Ticket' } } },
        },
        responses: { '204': { description: 'done' } },
      },
      delete: { operationId: 'deleteTicket', responses: { '204': { description: 'gone' } } },
    },
  },
};

export function declared(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name: 'desk', tenant: 'acme', environment: 'test' },
    spec: {
      type: 'http',
      connection: { baseUrl: 'https://desk.example.com/api' },
      document: { url: '/openapi.json' },
      operations: {
        list: { operationId: 'listTickets' },
        create: { operationId: 'createTicket', pinned: { 'body.status': 'open' } },
        replace: { operationId: 'replaceTicket' },
        remove: { operationId: 'deleteTicket' },
      },
      schema: {
        fields: {
          id: { type: 'integer', filterable: true, returnable: true },
          q: { type: 'string', filterable: true },
          'X-Tenant': { type: 'string', filterable: true },
          subject: { type: 'string', filterable: true, returnable: true },
          status: { type: 'string', filterable: true, returnable: true },
          secret_note: { type: 'string', returnable: true },
          owner: { type: 'string', filterable: true, returnable: true },
        },
      },
      access: {
        allowedRoles: ['support', 'lead'],
        readonly: false,
        maxLimit: 20,
        fieldRoles: { secret_note: ['lead'], owner: ['lead'] },
      },
      ...overrides,
    },
  };
}

/** The resource after discovery against `ticketDocument`, validated. */
export async function discovered(
  overrides: Record<string, unknown> = {},
): Promise<VersionedResource> {
  const input = declared(overrides) as {
    spec: Record<string, unknown> & { schema: { fields: Record<string, never> } };
  };
  const selection = describeSelection(input.spec as never, await readDocument(ticketDocument));
  for (const { path, value } of selection.specValues ?? []) {
    let node = input.spec as Record<string, unknown>;
    for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[path.at(-1) as string] = value;
  }
  input.spec.schema.fields = mergeSchema(input.spec.schema.fields, selection).fields as Record<
    string,
    never
  >;
  const result = validateDescriptor(input, kinds);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return {
    ...(applyDescriptorDefaults(result.descriptor, kinds) as ResourceDescriptor),
    version: 1,
  };
}
