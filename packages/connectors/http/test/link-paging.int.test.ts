/**
 * Paging by `Link` header (RFC 8288, GitHub's style) against an API server on 127.0.0.1 that
 * pages with `page`/`per_page` and says where the next page is only in that header: the agent
 * walks every item exactly once with Tollgate's cursor, each request keeps the operator's pinned
 * value and the agent's own query, and a next link that points elsewhere is not followed.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VersionedResource } from '@tollgate/core';
import { httpConnector } from '../src/index.js';
import { applyDiscovery, principal, testCredentials } from './support.js';

const PORT = Number(process.env['TG_HTTP_LINK_TEST_PORT'] ?? 29115);
const BASE = `http://127.0.0.1:${PORT}`;
const ITEMS = Array.from({ length: 7 }, (_, i) => ({ id: i + 1, name: `item-${i + 1}` }));

const document = {
  openapi: '3.1.0',
  info: { title: 'Items', version: '1' },
  paths: {
    '/items': {
      get: {
        operationId: 'listItems',
        parameters: [
          { name: 'per_page', in: 'query', schema: { type: 'integer' } },
          { name: 'team', in: 'query', schema: { type: 'string' } },
          { name: 'name_prefix', in: 'query', schema: { type: 'string' } },
          { name: 'include_archived', in: 'query', schema: { type: 'boolean' } },
        ],
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': {
                schema: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { id: { type: 'integer' }, name: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** Every query the server received for /items. */
const received: URLSearchParams[] = [];
/** Where the server's next link points (per test). */
let nextLink = (url: URL) => url.href;
let server: Server;
let resource: VersionedResource;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', BASE);
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/openapi.json') return res.end(JSON.stringify(document));
    received.push(url.searchParams);
    const size = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    const matching = ITEMS.filter((i) =>
      i.name.startsWith(url.searchParams.get('name_prefix') ?? ''),
    );
    const items = matching.slice((page - 1) * size, page * size);
    if (page * size < matching.length) {
      const next = new URL(url);
      next.searchParams.set('page', String(page + 1));
      res.setHeader('link', `<${nextLink(next)}>; rel="next", <${BASE}/items?page=99>; rel="last"`);
    }
    res.end(JSON.stringify(items));
  });
  await new Promise<void>((resolve) => server.listen(PORT, '127.0.0.1', resolve));
  const spec = {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name: 'items_api', tenant: 'acme', environment: 'test' },
    spec: {
      type: 'http',
      connection: { baseUrl: BASE, timeoutMs: 2000 },
      document: { url: '/openapi.json' },
      operations: {
        list: {
          operationId: 'listItems',
          pagination: { style: 'link', limitParam: 'per_page' },
          pinned: { team: 'acme' },
        },
      },
      schema: {
        fields: {
          name_prefix: { type: 'string', filterable: true },
          include_archived: { type: 'boolean', filterable: true },
          id: { type: 'integer', returnable: true },
          name: { type: 'string', returnable: true },
        },
      },
      access: {
        allowedRoles: ['support', 'lead'],
        maxLimit: 3,
        fieldRoles: { include_archived: ['lead'] },
      },
    },
  };
  resource = applyDiscovery(
    spec,
    await httpConnector.discover(spec.spec as never, testCredentials),
  );
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

describe('http link paging', () => {
  it('link paging - every item once, in order, with the pinned value and the agent’s query on every page', async () => {
    const agent = principal(resource, ['support']);
    const offered = agent.tool('list').inputSchema as { properties: Record<string, unknown> };
    // The page size is the platform's; the pinned team is nobody's to set.
    expect(Object.keys(offered.properties).sort()).toEqual(['cursor', 'limit', 'name_prefix']);
    received.length = 0;
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let call = 0; call < 10; call++) {
      const page = await agent.call('list', {
        name_prefix: 'item-',
        limit: 3,
        ...(cursor === undefined ? {} : { cursor }),
      });
      seen.push(...(page.data as Array<{ id: number }>).map((i) => i.id));
      cursor = page.cursor;
      if (cursor === undefined) break;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(received.map((q) => q.get('page'))).toEqual([null, '2', '3']);
    for (const query of received) {
      expect(query.get('team')).toBe('acme');
      expect(query.get('per_page')).toBe('3');
      expect(query.get('name_prefix')).toBe('item-');
    }
  });

  it('link paging - a next link that changes the pinned value or the query, or sets a closed parameter, changes nothing we send', async () => {
    nextLink = (url) => {
      url.searchParams.set('team', 'other-team');
      url.searchParams.set('name_prefix', 'secret-');
      // Only a lead may set it; the upstream's link does not set it for support either.
      url.searchParams.set('include_archived', 'true');
      return url.href;
    };
    try {
      const agent = principal(resource, ['support']);
      received.length = 0;
      const first = await agent.call('list', { name_prefix: 'item-', limit: 3 });
      const second = await agent.call('list', {
        name_prefix: 'item-',
        limit: 3,
        cursor: first.cursor!,
      });
      expect((second.data as Array<{ id: number }>).map((i) => i.id)).toEqual([4, 5, 6]);
      expect(received[1]?.getAll('team')).toEqual(['acme']);
      expect(received[1]?.getAll('name_prefix')).toEqual(['item-']);
      expect(received[1]?.has('include_archived')).toBe(false);
      expect(received[1]?.get('page')).toBe('2');
    } finally {
      nextLink = (url) => url.href;
    }
  });

  it('link paging - a next link to another host or path gives no cursor', async () => {
    for (const elsewhere of [
      (url: URL) => `http://127.0.0.2:${PORT}${url.pathname}${url.search}`,
      (url: URL) => `${BASE}/admin${url.search}`,
    ]) {
      nextLink = elsewhere;
      try {
        const page = await principal(resource, ['support']).call('list', { limit: 3 });
        expect((page.data as unknown[]).length).toBe(3);
        expect(page.cursor).toBeUndefined();
      } finally {
        nextLink = (url) => url.href;
      }
    }
  });
});
