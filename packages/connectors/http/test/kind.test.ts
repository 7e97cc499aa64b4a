import { describe, expect, it } from 'vitest';
import {
  isTollgateError,
  permissionsFromAccess,
  synthesizeTools,
  validateDescriptor,
} from '@tollgate/core';
import type { VersionedResource } from '@tollgate/core';
import { httpConnector } from '../src/index.js';
import { declared, discovered, kinds } from './fixtures.js';

function forRoles(resource: VersionedResource, roles: string[]) {
  const permissions = permissionsFromAccess(
    resource,
    { roles, agent: 'a' },
    httpConnector.operations(resource),
  );
  if (permissions === undefined) throw new Error('no access');
  return { permissions, tools: synthesizeTools(resource, permissions, httpConnector) };
}

function compileError(resource: VersionedResource, roles: string[], op: string, args: unknown) {
  const { permissions } = forRoles(resource, roles);
  try {
    httpConnector.compile(op, args, {
      descriptor: resource,
      permissions,
      principal: { tenant: 'acme', agent: 'a' },
    });
  } catch (err) {
    if (isTollgateError(err)) return err;
  }
  throw new Error('compiled');
}

describe('http kind', () => {
  it('operations come from the document: class from the method, only PUT/DELETE idempotent among writes', async () => {
    const resource = await discovered();
    expect(httpConnector.operations(resource)).toEqual([
      { name: 'create', action: 'create', class: 'write', idempotent: false, returnsFields: true },
      {
        name: 'list',
        action: 'list',
        class: 'read',
        idempotent: true,
        limited: true,
        returnsFields: true,
      },
      {
        name: 'remove',
        action: 'remove',
        class: 'destructive',
        idempotent: true,
        returnsFields: true,
      },
      { name: 'replace', action: 'replace', class: 'write', idempotent: true, returnsFields: true },
    ]);
  });

  it('a read-only resource offers its reads only', async () => {
    const resource = await discovered();
    const readOnly = structuredClone(resource);
    readOnly.spec.access.readonly = true;
    expect(httpConnector.operations(readOnly).map((o) => o.name)).toEqual(['list']);
  });

  it('the operator may tighten a class, never loosen it', async () => {
    const tightened = await discovered();
    (tightened.spec as unknown as { operations: Record<string, { class: string }> }).operations[
      'replace'
    ]!.class = 'destructive';
    expect(httpConnector.operations(tightened).find((o) => o.name === 'replace')?.class).toBe(
      'destructive',
    );
    const loosened = structuredClone(tightened) as unknown as {
      spec: { operations: Record<string, { class: string }> };
    };
    loosened.spec.operations['remove']!.class = 'read';
    const result = validateDescriptor(loosened, kinds);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.map((p) => p.path)).toContain(
      'spec.operations.remove.class',
    );
  });

  it('tools are closed and pruned by field roles; pinned values are never offered', async () => {
    const resource = await discovered();
    const support = forRoles(resource, ['support']).tools;
    const create = support.find((t) => t.operation === 'create');
    const body = (create?.inputSchema['properties'] as Record<string, Record<string, unknown>>)[
      'body'
    ];
    expect(Object.keys(body?.['properties'] as object).sort()).toEqual(['id', 'subject']);
    expect(body?.['additionalProperties']).toBe(false);
    expect(create?.inputSchema['additionalProperties']).toBe(false);
    const list = support.find((t) => t.operation === 'list');
    expect(Object.keys(list?.inputSchema['properties'] as object).sort()).toEqual([
      'X-Tenant',
      'cursor',
      'limit',
      'q',
    ]);
    const lead = forRoles(resource, ['lead']).tools.find((t) => t.operation === 'create');
    const leadBody = (lead?.inputSchema['properties'] as Record<string, Record<string, unknown>>)[
      'body'
    ];
    expect(Object.keys(leadBody?.['properties'] as object).sort()).toEqual([
      'id',
      'owner',
      'subject',
    ]);
  });

  it('an operation whose required parameter nobody may set is not offered', async () => {
    const resource = await discovered();
    const noId = structuredClone(resource);
    noId.spec.schema.fields['id'] = { type: 'integer', returnable: true };
    const ops = forRoles(noId, ['support']).tools.map((t) => t.operation);
    expect(ops).not.toContain('remove');
    expect(ops).toContain('list');
  });

  it('a PATCH body requires nothing, even when the document reuses the create schema', async () => {
    const base = declared()['spec'] as { operations: Record<string, unknown> };
    const resource = await discovered({
      operations: { ...base.operations, update: { operationId: 'updateTicket' } },
    });
    const { permissions } = forRoles(resource, ['support']);
    const ctx = { descriptor: resource, permissions, principal: { tenant: 'acme', agent: 'a' } };
    const tool = forRoles(resource, ['support']).tools.find((t) => t.operation === 'update');
    const body = (tool?.inputSchema['properties'] as Record<string, Record<string, unknown>>)[
      'body'
    ];
    expect(JSON.stringify(body)).not.toContain('"required"');
    expect(
      httpConnector.compile('update', { id: '7', body: { status: 'closed' } }, ctx).native,
    ).toMatchObject({ method: 'PATCH', body: { status: 'closed' } });
    // The create schema still requires its subject for a POST.
    expect(compileError(resource, ['support'], 'create', {}).details).toEqual([
      { path: 'body.subject', message: 'required' },
    ]);
  });

  it('compiles from the document template: encoded path, pinned body, paging as offset', async () => {
    const resource = await discovered();
    const { permissions } = forRoles(resource, ['support']);
    const ctx = { descriptor: resource, permissions, principal: { tenant: 'acme', agent: 'a' } };
    const created = httpConnector.compile('create', { body: { subject: 'Help' } }, ctx);
    expect(created.native).toMatchObject({
      method: 'POST',
      url: 'https://desk.example.com/api/tickets',
      body: { subject: 'Help', status: 'open' },
    });
    expect(created.idempotent).toBe(false);
    const removed = httpConnector.compile('remove', { id: '../../admin?x=1#' }, ctx);
    expect(removed.native.url).toBe(
      'https://desk.example.com/api/tickets/..%2F..%2Fadmin%3Fx%3D1%23',
    );
    const listed = httpConnector.compile('list', { q: 'printer', limit: 5 }, ctx);
    expect(new URL(listed.native.url).searchParams.toString()).toBe('limit=5&offset=0&q=printer');
  });

  it('refuses arguments the principal may not set, unknown ones and reserved headers', async () => {
    const resource = await discovered();
    expect(
      compileError(resource, ['support'], 'create', { body: { subject: 'x', owner: 'me' } })
        .details,
    ).toEqual([{ path: 'body.owner', message: 'not a property you may set' }]);
    expect(
      compileError(resource, ['support'], 'list', { url: 'http://169.254.169.254' }).code,
    ).toBe('ARGUMENTS_INVALID');
    expect(compileError(resource, ['support'], 'create', {}).details).toEqual([
      { path: 'body.subject', message: 'required' },
    ]);
    expect(
      compileError(resource, ['support'], 'create', { body: { subject: 'x', status: 'closed' } })
        .details,
    ).toEqual([{ path: 'body.status', message: 'not a property you may set' }]);
    expect(
      compileError(resource, ['support'], 'list', { 'X-Tenant': 'a\r\nAuthorization: x' })
        .details[0]?.path,
    ).toBe('X-Tenant');
  });

  it('a cursor continues only the query it came from', async () => {
    const resource = await discovered();
    const { permissions } = forRoles(resource, ['support']);
    const ctx = { descriptor: resource, permissions, principal: { tenant: 'acme', agent: 'a' } };
    const first = httpConnector.compile('list', { q: 'a', limit: 2 }, ctx);
    const upstream = {
      status: 200,
      attempts: 1,
      latencyMs: 1,
      body: {
        contentType: 'application/json',
        size: 10,
        json: {
          data: [
            { id: 1, subject: 'x' },
            { id: 2, subject: 'y' },
          ],
        },
      },
    };
    const page = httpConnector.shape('list', upstream, {
      descriptor: resource,
      permissions,
      request: first,
    });
    expect(page.cursor).toBeDefined();
    const second = httpConnector.compile('list', { q: 'a', limit: 2, cursor: page.cursor }, ctx);
    expect(new URL(second.native.url).searchParams.get('offset')).toBe('2');
    expect(() =>
      httpConnector.compile('list', { q: 'b', limit: 2, cursor: page.cursor }, ctx),
    ).toThrow(/cursor/i);
  });

  it('link paging: the next link adds only its position; what the agent and operator set stays', async () => {
    const resource = await discovered({
      operations: {
        list: {
          operationId: 'listTickets',
          pagination: { style: 'link', limitParam: 'limit' },
          pinned: { 'X-Tenant': 'acme' },
        },
      },
    });
    const { permissions } = forRoles(resource, ['support']);
    const ctx = { descriptor: resource, permissions, principal: { tenant: 'acme', agent: 'a' } };
    const answer = (link: string | undefined) => ({
      status: 200,
      attempts: 1,
      latencyMs: 1,
      body: {
        contentType: 'application/json',
        size: 10,
        json: { data: [{ id: 1, subject: 'x' }] },
        ...(link === undefined ? {} : { link }),
      },
    });
    const shape = (request: ReturnType<typeof httpConnector.compile>, link?: string) =>
      httpConnector.shape('list', answer(link), { descriptor: resource, permissions, request });
    const first = httpConnector.compile('list', { q: 'a', limit: 1 }, ctx);
    expect(new URL(first.native.url).search).toBe('?limit=1&q=a');

    // The link tries to change the query and the page size, and adds its position.
    const page = shape(
      first,
      '<https://desk.example.com/api/tickets?q=other&limit=100&page=2&after=1>; rel="next", ' +
        '<https://desk.example.com/api/tickets?page=9>; rel="last"',
    );
    expect(page.cursor).toBeDefined();
    const second = httpConnector.compile('list', { q: 'a', limit: 1, cursor: page.cursor }, ctx);
    const url = new URL(second.native.url);
    expect([...url.searchParams].sort()).toEqual([
      ['after', '1'],
      ['limit', '1'],
      ['page', '2'],
      ['q', 'a'],
    ]);
    expect(second.native.headers['x-tenant']).toBe('acme');
    // The position moves on from the carried parameters; a link that does not move ends it.
    const third = shape(second, '<?page=3&after=2&q=a>; rel="next"');
    const next = httpConnector.compile('list', { q: 'a', limit: 1, cursor: third.cursor }, ctx);
    expect(new URL(next.native.url).searchParams.get('page')).toBe('3');
    expect(shape(second, '<?page=2&after=1>; rel="next"').cursor).toBeUndefined();
    // Only on the request's own origin and path, never a link elsewhere.
    for (const elsewhere of [
      '<https://evil.example.com/api/tickets?page=2>; rel="next"',
      '<https://desk.example.com/api/admin?page=2>; rel="next"',
      '<https://user:pw@desk.example.com/api/tickets?page=2>; rel="next"',
      '<http://desk.example.com/api/tickets?page=2>; rel="next"',
      '<https://desk.example.com/api/tickets?page=2>; rel="prev"',
      `<https://desk.example.com/api/tickets?page=${'9'.repeat(2000)}>; rel="next"`,
    ])
      expect(shape(first, elsewhere).cursor, elsewhere).toBeUndefined();
    expect(shape(first).cursor).toBeUndefined();
    // A cursor continues only its own query.
    expect(() =>
      httpConnector.compile('list', { q: 'b', limit: 1, cursor: page.cursor }, ctx),
    ).toThrow(/cursor/i);
  });

  it('endpoints name the base URL and the document URL for egress checks', () => {
    const spec = (declared() as { spec: never }).spec;
    expect(httpConnector.endpoints(spec)).toEqual([
      { path: 'spec.connection.baseUrl', url: 'https://desk.example.com/api' },
      { path: 'spec.document.url', url: 'https://desk.example.com/openapi.json' },
    ]);
  });

  it('a document on another host is refused at validation', () => {
    const result = validateDescriptor(
      declared({ document: { url: 'http://169.254.169.254/openapi.json' } }),
      kinds,
    );
    expect(!result.ok && result.problems.map((p) => p.path)).toEqual(['spec.document.url']);
  });
});
