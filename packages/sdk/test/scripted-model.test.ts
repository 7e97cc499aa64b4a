import type { JsonObject } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { echoDraft, llmConfigFromEnv, readAgreement } from '../src/index.js';
import { demoReply } from '../src/demo.js';
import { validate } from '@tollgate/kinds';
import { extractResourceFromText } from '../src/model/resource-extraction.js';
import { parseChatRequest } from '../src/model/scripted-server.js';
import { pathSegments, repairArguments } from '../src/model/argument-repair.js';
import { resourceExtractionSchema } from '../src/registration/extraction-schema.js';
import { toDescriptor } from '../src/registration/propose.js';
import type { ChatRequest } from '../src/demo.js';
import { searchSchema } from './support/fixtures.js';

function request(body: JsonObject): ChatRequest {
  const parsed = parseChatRequest(body);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

describe('scripted model - requests', () => {
  it('scripted model - malformed chat requests are refused with the reason', () => {
    expect(parseChatRequest({ model: 'm', messages: [], stream: false })).toBe(
      '`messages` must be a non-empty array',
    );
    expect(
      parseChatRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true }),
    ).toBe('streaming is not supported by the scripted model');
    expect(parseChatRequest({ model: 'm', messages: [{ content: 'x' }] })).toBe(
      'messages[0] needs a role',
    );
  });

  it('scripted model - an order id in the task becomes a search with an id filter, other keys null', () => {
    const reply = demoReply(
      request({
        model: 'm',
        messages: [{ role: 'user', content: 'Where is order ORD-42A?' }],
        tools: [
          { type: 'function', function: { name: 'es_orders_search', parameters: searchSchema() } },
        ],
      }),
    );
    expect(reply).toEqual({
      toolCalls: [
        {
          name: 'es_orders_search',
          arguments: {
            filters: [{ field: 'id', op: 'eq', value: 'ORD-42A' }],
            limit: 5,
            cursor: null,
          },
        },
      ],
    });
  });

  it('scripted model - without an order id or a search tool it says what it can do', () => {
    const reply = demoReply(
      request({ model: 'm', messages: [{ role: 'user', content: 'hello' }] }),
    );
    expect(reply).toEqual({
      content: 'In this demo I can look orders up by id: ask me about "order <id>".',
    });
  });
});

describe('scripted model - argument repair', () => {
  it('scripted model - paths read as JSON Pointers or readable paths', () => {
    expect(pathSegments('/filters/0/op')).toEqual(['filters', '0', 'op']);
    expect(pathSegments('filters[0].op')).toEqual(['filters', '0', 'op']);
    expect(pathSegments('fields["a.b"]')).toEqual(['fields', 'a.b']);
  });

  it('scripted model - enumerations pick the first allowed value, bounds the bound, extras are dropped', () => {
    const args = { filters: [{ field: 'id', op: 'gt', value: 'x' }], limit: 500, colour: 'red' };
    expect(
      repairArguments(args, [
        { path: 'filters[0].op', expected: 'one of "eq", "in", "exists"' },
        { path: '/limit', expected: 'a number <= 50' },
        { path: 'colour', expected: 'only filters, limit, cursor' },
      ]),
    ).toEqual({ filters: [{ field: 'id', op: 'eq', value: 'x' }], limit: 50 });
    expect(
      repairArguments(args, [{ path: 'limit', expected: 'a value (required)' }]),
    ).toBeUndefined();
    // The executor's wording: unquoted alternatives, then the field they are for.
    expect(
      repairArguments(args, [
        { path: 'filters[0].op', expected: 'one of eq, in, exists for field "id"' },
      ]),
    ).toMatchObject({ filters: [{ field: 'id', op: 'eq', value: 'x' }] });
  });
});

describe('registration - extraction', () => {
  it('registration - the extraction schema is the Resource schema, inlined, partial, without tenant', () => {
    const schema = resourceExtractionSchema();
    const text = JSON.stringify(schema);
    expect(text).not.toContain('$ref');
    expect(text).not.toContain('"required"');
    const properties = schema.properties as JsonObject;
    expect(Object.keys(properties).sort()).toEqual(['metadata', 'spec']);
    const metadata = (properties.metadata as JsonObject).properties as JsonObject;
    expect(Object.keys(metadata)).not.toContain('tenant');
    expect(Object.keys(metadata)).not.toContain('environment');
    const fieldType = JSON.stringify(properties.spec);
    expect(fieldType).toContain('"keyword"');
    expect(schema.additionalProperties).toBe(false);
  });

  it('registration - the scripted model reads endpoint, index, field types and roles from prose', () => {
    const extracted = extractResourceFromText(
      'I have an ES at http://es.internal:9200, index orders, id is keyword, amount is a number, ' +
        'created_at is a date, note is text; credential env://ES_ORDERS_KEY; roles support and order_ops.',
    );
    expect(extracted).toEqual({
      metadata: { name: 'es_orders' },
      spec: {
        type: 'elasticsearch',
        connection: { endpoint: 'http://es.internal:9200', credentialRef: 'env://ES_ORDERS_KEY' },
        target: { index: 'orders' },
        schema: {
          fields: {
            id: { type: 'keyword', filterable: true, returnable: true },
            amount: { type: 'double', range: true, sortable: true, returnable: true },
            created_at: { type: 'date', range: true, sortable: true, returnable: true },
            note: { type: 'text', searchable: true, returnable: true },
          },
        },
        access: { allowedRoles: ['support', 'order_ops'] },
      },
    });
    expect(toDescriptor(extracted)).toMatchObject({
      apiVersion: 'tollgate.dev/v1',
      kind: 'Resource',
    });
  });

  it('registration - a PostgreSQL or MySQL table read from prose is a valid descriptor of its kind', () => {
    const pg = extractResourceFromText(
      'I have a PostgreSQL at postgres://db.internal:5433/shop, table sales.orders, call it pg_sales, ' +
        'credential env://PG_SHOP; roles support; id is an integer, total is a decimal, placed_at is a timestamp, email is text.',
    );
    expect(pg).toEqual({
      metadata: { name: 'pg_sales' },
      spec: {
        type: 'postgres',
        connection: {
          host: 'db.internal',
          port: 5433,
          database: 'shop',
          credentialRef: 'env://PG_SHOP',
        },
        target: { schema: 'sales', table: 'orders' },
        schema: {
          fields: {
            id: {
              type: 'integer',
              filterable: true,
              range: true,
              sortable: true,
              returnable: true,
            },
            total: {
              type: 'decimal',
              filterable: true,
              range: true,
              sortable: true,
              returnable: true,
            },
            placed_at: {
              type: 'datetime',
              filterable: true,
              range: true,
              sortable: true,
              returnable: true,
            },
            email: { type: 'string', filterable: true, returnable: true },
          },
        },
        access: { allowedRoles: ['support'] },
      },
    });
    const mysql = extractResourceFromText(
      'Our MariaDB is at mysql://10.0.0.7/shop, table orders; credential file:///run/secrets/shop.json; status is text',
    );
    expect(mysql).toEqual({
      metadata: { name: 'mysql_orders' },
      spec: {
        type: 'mysql',
        connection: {
          host: '10.0.0.7',
          database: 'shop',
          credentialRef: 'file:///run/secrets/shop.json',
        },
        target: { table: 'orders' },
        schema: { fields: { status: { type: 'string', filterable: true, returnable: true } } },
      },
    });
    // What was read is the kind's own descriptor: it validates once metadata and access are given.
    for (const extracted of [
      pg,
      { ...mysql, spec: { ...(mysql.spec as JsonObject), access: { allowedRoles: ['support'] } } },
    ]) {
      const descriptor = toDescriptor(extracted) as JsonObject;
      const checked = validate({
        ...descriptor,
        metadata: { ...(descriptor.metadata as JsonObject), tenant: 'team-a', environment: 'prod' },
      });
      expect(checked.ok ? [] : checked.problems).toEqual([]);
    }
    // A sentence about neither kind is not read as one (nor as an index).
    expect(extractResourceFromText('please find order 12345')).toEqual({});
  });

  it('registration - the scripted model takes a described table to the registration tool', () => {
    const reply = demoReply(
      request({
        model: 'tollgate-demo',
        messages: [
          {
            role: 'user',
            content:
              'I have a PostgreSQL at postgres://127.0.0.1:5432/tollgate, table demo_shop.orders',
          },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'register_resource',
              description: 'Register a resource',
              parameters: { type: 'object', properties: { description: { type: 'string' } } },
            },
          },
        ],
      }),
    );
    expect('toolCalls' in reply ? reply.toolCalls[0]?.name : undefined).toBe('register_resource');
  });

  it('registration - the echo lists declared and discovered fields and asks for agreement', () => {
    const echo = echoDraft({
      draftId: 'd1',
      status: 'pending',
      tenant: 't',
      environment: 'prod',
      name: 'es_orders',
      descriptor: {
        spec: {
          type: 'elasticsearch',
          target: { index: 'orders' },
          connection: { endpoint: 'http://es:9200' },
        },
      },
      fields: [
        {
          name: 'id',
          type: 'keyword',
          nativeType: 'keyword',
          declared: true,
          proposedCapabilities: [],
        },
        {
          name: 'amount',
          type: 'double',
          nativeType: 'double',
          declared: true,
          declaredType: 'long',
          proposedCapabilities: [],
        },
        {
          name: 'status',
          type: 'keyword',
          nativeType: 'keyword',
          declared: false,
          proposedCapabilities: ['filterable'],
        },
      ],
      warnings: [],
      confirmable: false,
    });
    expect(echo).toBe(
      [
        'I understood: Elasticsearch index "orders" at http://es:9200; as resource es_orders; fields id (keyword), amount (double, you said long).',
        'Discovery also found status (keyword) (not enabled).',
        'Something required is still missing, so it cannot be saved as it is.',
        'Is that correct?',
      ].join('\n'),
    );
  });

  it.each([
    ['yes', 'yes'],
    ['Yes, that is right', 'yes'],
    ["that's correct", 'yes'],
    ['确认', 'yes'],
    ['no, amount is a long', 'no'],
    ['not quite', 'no'],
    ['hmm, what about status?', 'unclear'],
  ])('registration - the reply %j reads as %s', (reply, expected) => {
    expect(readAgreement(reply)).toBe(expected);
  });
});

describe('llm - configuration', () => {
  it('llm - the endpoint comes from TOLLGATE_LLM_*; a URL without a model is an error', () => {
    expect(llmConfigFromEnv({})).toBeUndefined();
    expect(
      llmConfigFromEnv({
        TOLLGATE_LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
        TOLLGATE_LLM_MODEL: 'qwen2.5',
      }),
    ).toEqual({ baseURL: 'http://127.0.0.1:11434/v1', model: 'qwen2.5' });
    expect(() => llmConfigFromEnv({ TOLLGATE_LLM_BASE_URL: 'http://x/v1' })).toThrow(
      'TOLLGATE_LLM_MODEL must name a model when TOLLGATE_LLM_BASE_URL is set',
    );
  });
});
