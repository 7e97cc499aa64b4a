import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directusAccess, uniqueName } from '../support/infra.js';

const directus = directusAccess();
const tickets = `/items/${directus.collection}`;
let adminToken = '';
const created: number[] = [];

async function call(
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<{
  status: number;
  json: { data?: unknown; errors?: { extensions?: { code?: string } }[] };
}> {
  const res = await fetch(`${directus.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : {} };
}

beforeAll(async () => {
  const login = await call('POST', '/auth/login', undefined, {
    email: directus.adminEmail,
    password: directus.adminPassword,
  });
  expect(login.status).toBe(200);
  adminToken = (login.json.data as { access_token: string }).access_token;
});
afterAll(async () => {
  for (const id of created) await call('DELETE', `${tickets}/${id}`, adminToken);
});

describe('smoke - Directus', () => {
  it('directus - the OpenAPI document, read with the connector token, describes tickets', async () => {
    const oas = await call('GET', '/server/specs/oas', directus.token);
    expect(oas.status).toBe(200);
    const spec = oas.json as unknown as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(spec.openapi).toMatch(/^3\./);
    expect(Object.keys(spec.paths[tickets] ?? {})).toEqual(expect.arrayContaining(['get', 'post']));
    const schema = spec.components.schemas.ItemsTickets;
    expect(Object.keys(schema?.properties ?? {})).toEqual(
      expect.arrayContaining(['id', 'subject', 'status', 'priority', 'requester_email']),
    );
  });

  it('directus - the connector creates, reads and updates a ticket over REST', async () => {
    const subject = uniqueName('Printer on fire');
    const post = await call('POST', tickets, directus.token, {
      subject,
      description: 'Smoke is coming out of the printer on floor 3',
      requester_email: 'ana@example.com',
      tags: ['hardware'],
    });
    expect(post.status).toBe(200);
    const ticket = post.json.data as { id: number; status: string; priority: string };
    created.push(ticket.id);
    expect(ticket).toMatchObject({ status: 'open', priority: 'normal' });
    const found = await call(
      'GET',
      `${tickets}?filter=${encodeURIComponent(JSON.stringify({ subject: { _eq: subject } }))}`,
      directus.token,
    );
    expect((found.json.data as { id: number }[]).map((t) => t.id)).toEqual([ticket.id]);
    const patch = await call('PATCH', `${tickets}/${ticket.id}`, directus.token, {
      status: 'pending',
    });
    expect(patch.status).toBe(200);
    expect((patch.json.data as { status: string }).status).toBe('pending');
  });

  it('directus - a status outside open/pending/closed is refused and changes nothing', async () => {
    const post = await call('POST', tickets, directus.token, {
      subject: uniqueName('Bad status'),
      requester_email: 'ana@example.com',
    });
    const id = (post.json.data as { id: number }).id;
    created.push(id);
    const bad = await call('PATCH', `${tickets}/${id}`, directus.token, { status: 'deleted' });
    expect(bad.status).toBe(400);
    expect(bad.json.errors?.[0]?.extensions?.code).toBe('FAILED_VALIDATION');
    const after = await call('GET', `${tickets}/${id}`, directus.token);
    expect((after.json.data as { status: string }).status).toBe('open');
  });

  it('directus - the connector may not delete tickets or read users; no token reads nothing', async () => {
    const post = await call('POST', tickets, directus.token, {
      subject: uniqueName('Keep me'),
      requester_email: 'ana@example.com',
    });
    const id = (post.json.data as { id: number }).id;
    created.push(id);
    expect((await call('DELETE', `${tickets}/${id}`, directus.token)).status).toBe(403);
    expect((await call('GET', `${tickets}/${id}`, directus.token)).status).toBe(200);
    expect((await call('GET', '/users', directus.token)).status).toBe(403);
    expect((await call('GET', tickets, undefined)).status).toBe(403);
    expect((await call('GET', tickets, 'not-the-token')).status).toBe(401);
  });
});
