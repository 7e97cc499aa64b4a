/**
 * The ticket story against the real Directus: the OpenAPI document is discovered, tools are
 * offered per role, and calls go through compile → execute → shape to the tickets collection.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VersionedResource } from '@tollgate/core';
import { httpConnector } from '../src/index.js';
import { adminToken, directus, ticketsDeclared } from './directus.js';
import { applyDiscovery, principal, testCredentials } from './support.js';

let resource: VersionedResource;
const run = randomBytes(4).toString('hex');

beforeAll(async () => {
  const declared = ticketsDeclared();
  const schema = await httpConnector.discover(declared['spec'] as never, testCredentials);
  resource = applyDiscovery(declared, schema);
});

// The tickets this run opened, removed with the admin token so the collection does not grow.
afterAll(async () => {
  const token = await adminToken();
  const auth = { authorization: `Bearer ${token}` };
  const filter = encodeURIComponent(JSON.stringify({ subject: { _contains: run } }));
  const res = await fetch(`${directus.url}/items/tickets?filter=${filter}&fields=id&limit=-1`, {
    headers: auth,
  });
  const mine = ((await res.json()) as { data?: Array<{ id: number }> }).data ?? [];
  for (const { id } of mine)
    await fetch(`${directus.url}/items/tickets/${id}`, { method: 'DELETE', headers: auth });
});

describe('http kind on Directus tickets', () => {
  it('discovery describes the selected operations from the document', () => {
    const ops = httpConnector.operations(resource);
    expect(ops.map((o) => [o.name, o.class, o.idempotent])).toEqual([
      ['get_ticket', 'read', true],
      ['list_tickets', 'read', true],
      ['open_ticket', 'write', false],
      ['update_ticket', 'write', false],
    ]);
    const spec = resource.spec as unknown as {
      operations: Record<string, { request: { method: string; path: string } }>;
    };
    expect(spec.operations['get_ticket']?.request).toMatchObject({
      method: 'get',
      path: '/items/tickets/{id}',
    });
  });

  it('a support agent opens, lists, searches and reads tickets with only its fields', async () => {
    const support = principal(resource, ['support']);
    const subject = `Printer on fire ${run}`;
    const opened = await support.call('open_ticket', {
      body: { subject, requester_email: 'ann@example.com', priority: 'high' },
    });
    const created = (opened.data as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    expect(created).toMatchObject({ subject, status: 'open' });
    expect(created['assignee']).toBeUndefined();
    expect(created['requester_email']).not.toBe('ann@example.com');

    const found = await support.call('list_tickets', { search: run, limit: 5 });
    expect(found.returned).toBe(1);
    expect((found.data as Array<Record<string, unknown>>)[0]).toMatchObject({
      id: created['id'],
      subject,
    });

    const one = await support.call('get_ticket', { id: created['id'] });
    expect(one.data).toMatchObject({ id: created['id'], status: 'open' });
    expect(Object.keys(one.data as object)).not.toContain('assignee');

    const lead = principal(resource, ['lead'], 'lead-bot');
    const seen = await lead.call('get_ticket', { id: created['id'] });
    expect(seen.data).toMatchObject({ requester_email: 'ann@example.com' });
  });
});
