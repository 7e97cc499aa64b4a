/**
 * The Directus deploy/local runs, as the ticket tests and the bench meet it: where it is, the
 * ticket resource as an operator declares it, and an admin token for setting up and tearing down.
 */
import { directusAccess } from '../../../../test/support/infra.js';
import type { HttpSpec } from '../src/index.js';

export const directus = directusAccess();
process.env['TG_HTTP_DIRECTUS_TOKEN'] = directus.token;

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
