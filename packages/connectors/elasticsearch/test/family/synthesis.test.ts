import { describe, expect, it } from 'vitest';
import { TollgateError, toolName, toolVersionHash } from '@tollgate/core';
import { permissionsFromAccess, synthesizeTools } from './bound.js';
import type { JsonObject, PermissionSet, VersionedResource } from '@tollgate/core';
import {
  argSchema,
  filterTable,
  orders,
  toolFor,
  wideResource,
  writableOrders,
} from '../../../../core/test/synthesis-fixtures.js';

const OPS = { roles: ['order_ops'], agent: 'ops_bot' };
const SUPPORT = { roles: ['support'], agent: 'support_bot' };

function permissions(resource: VersionedResource, principal = OPS): PermissionSet {
  const p = permissionsFromAccess(resource, principal);
  if (p === undefined) throw new Error('principal not allowed');
  return p;
}

function walk(
  schema: JsonObject,
  visit: (node: JsonObject, path: string) => void,
  path = '',
): void {
  visit(schema, path);
  for (const [key, sub] of Object.entries(schema)) {
    if (key === 'properties') {
      for (const [name, child] of Object.entries(sub as JsonObject))
        walk(child as JsonObject, visit, `${path}.${name}`);
    } else if (key === 'items') walk(sub as JsonObject, visit, `${path}[]`);
    else if (key === 'anyOf')
      (sub as JsonObject[]).forEach((child, i) => walk(child, visit, `${path}|${i}`));
  }
}

describe('synthesis', () => {
  it('synthesis - emits one tool per allowed operation, in a fixed order', () => {
    const read = synthesizeTools(orders(), permissions(orders()));
    expect(read.map((t) => t.name)).toEqual([
      'es_orders_search',
      'es_orders_get',
      'es_orders_count',
      'es_orders_aggregate',
    ]);
    expect(read.map((t) => t.resource)).toEqual(
      Array(4).fill({ name: 'es_orders', tenant: 'team-a', environment: 'prod', version: 7 }),
    );
    const some = synthesizeTools(orders(), {
      ...permissions(orders()),
      operations: ['count', 'get'],
    });
    expect(some.map((t) => t.operation)).toEqual(['get', 'count']);
  });

  it('synthesis - write only when the resource is not readonly and the permission allows it', () => {
    const all = {
      ...permissions(orders()),
      operations: ['search', 'write'] as PermissionSet['operations'],
    };
    expect(synthesizeTools(orders(), all).map((t) => t.operation)).toEqual(['search']);
    expect(synthesizeTools(writableOrders(), all).map((t) => t.operation)).toEqual([
      'search',
      'write',
    ]);
    const noWrite = { ...all, operations: ['search'] as PermissionSet['operations'] };
    expect(synthesizeTools(writableOrders(), noWrite).map((t) => t.operation)).toEqual(['search']);
  });

  it('synthesis - filter operators are pruned by field type and capability', () => {
    const table = filterTable(
      toolFor(
        synthesizeTools(orders(), permissions(orders()), { filterLayout: 'per_field' }),
        'search',
      ),
    );
    const ops = Object.fromEntries([...table].map(([field, row]) => [field, [...row.keys()]]));
    expect(ops).toEqual({
      amount: ['eq', 'gt', 'gte', 'lt', 'lte', 'between'],
      client_ip: ['eq', 'in', 'exists'],
      created_at: ['eq', 'gt', 'gte', 'lt', 'lte', 'between'],
      'customer.email': ['eq', 'in', 'exists'],
      'customer.name': ['match'],
      'customer.tier': ['eq', 'in', 'exists'],
      discount_rate: ['gt', 'gte', 'lt', 'lte', 'between'],
      gift: ['eq'],
      id: ['eq', 'in', 'exists'],
      loyalty_points: ['gt', 'gte', 'lt', 'lte', 'between'],
      note: ['match'],
      quantity: ['eq', 'gt', 'gte', 'lt', 'lte', 'between'],
      status: ['eq', 'in', 'exists'],
      user_id: ['eq', 'in', 'exists'],
    });
  });

  it('synthesis - filter values are typed per field and operator', () => {
    const table = filterTable(toolFor(synthesizeTools(orders(), permissions(orders())), 'search'));
    const value = (field: string, op: string): unknown => table.get(field)?.get(op);
    expect(value('id', 'eq')).toEqual({ type: 'string', maxLength: 256 });
    expect(value('id', 'in')).toEqual({
      type: 'array',
      items: { type: 'string', maxLength: 256 },
      minItems: 1,
      maxItems: 100,
    });
    expect(value('id', 'exists')).toBeUndefined();
    expect(value('amount', 'gt')).toEqual({ type: 'number' });
    expect(value('amount', 'between')).toEqual({
      type: 'array',
      items: { type: 'number' },
      minItems: 2,
      maxItems: 2,
    });
    expect(value('quantity', 'eq')).toEqual({
      type: 'integer',
      minimum: -2147483648,
      maximum: 2147483647,
    });
    expect(value('loyalty_points', 'lt')).toEqual({ type: 'integer' });
    expect(value('created_at', 'gte')).toEqual({ type: 'string', format: 'date-time' });
    expect(value('gift', 'eq')).toEqual({ type: 'boolean' });
    expect(value('note', 'match')).toEqual({ type: 'string', maxLength: 256 });
    expect(value('client_ip', 'eq')).toEqual({
      anyOf: [
        { type: 'string', format: 'ipv4' },
        { type: 'string', format: 'ipv6' },
      ],
    });
  });

  it('synthesis - fields, sort and limit list only what the principal may use', () => {
    const search = toolFor(synthesizeTools(orders(), permissions(orders(), SUPPORT)), 'search');
    expect((argSchema(search, 'fields')?.items as JsonObject).enum).toEqual([
      'amount',
      'client_ip',
      'created_at',
      'customer.name',
      'customer.tier',
      'discount_rate',
      'gift',
      'id',
      'items',
      'loyalty_points',
      'note',
      'quantity',
      'shipping_location',
      'status',
    ]);
    const sortItem = argSchema(search, 'sort')?.items as JsonObject;
    expect((sortItem.properties as Record<string, JsonObject>).field?.enum).toEqual([
      'amount',
      'created_at',
      'id',
    ]);
    expect(argSchema(search, 'limit')).toMatchObject({
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 100,
    });
    expect(argSchema(search, 'cursor')).toMatchObject({ type: ['string', 'null'] });
    expect(search.inputSchema.required).toBeUndefined();
  });

  it('synthesis - limit is the smaller of the permission cap and maxLimit', () => {
    const limitOf = (limitCap: number): unknown =>
      argSchema(
        toolFor(synthesizeTools(orders(), { ...permissions(orders()), limitCap }), 'search'),
        'limit',
      )?.maximum;
    expect(limitOf(25)).toBe(25);
    expect(limitOf(500)).toBe(100);
  });

  it('synthesis - aggregations use aggregatable, visible, unredacted fields with a bucket cap', () => {
    const resource = orders();
    resource.spec.access.redact = { ...resource.spec.access.redact, status: 'mask' };
    const aggregate = toolFor(synthesizeTools(resource, permissions(resource)), 'aggregate');
    const branches = (argSchema(aggregate, 'aggregation')?.anyOf as JsonObject[]).map(
      (b) => b.properties as Record<string, JsonObject>,
    );
    expect(branches.map((b) => [b.kind?.const, b.field?.enum])).toEqual([
      ['terms', ['amount', 'customer.tier', 'gift']],
      ['date_histogram', ['created_at']],
      ['stats', ['amount']],
      ['cardinality', ['amount', 'created_at', 'customer.tier']],
    ]);
    expect(branches[0]?.size).toMatchObject({
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 100,
    });
    expect(branches[1]?.interval).toEqual({
      type: 'string',
      enum: ['hour', 'day', 'week', 'month', 'year'],
    });
    expect(aggregate.inputSchema.required).toEqual(['aggregation']);
  });

  it('synthesis - fields redacted with drop are neither returned, sorted nor written', () => {
    const resource = writableOrders();
    resource.spec.access.redact = { amount: 'drop' };
    const tools = synthesizeTools(resource, permissions(resource));
    const search = toolFor(tools, 'search');
    expect((argSchema(search, 'fields')?.items as JsonObject).enum).not.toContain('amount');
    expect(JSON.stringify(argSchema(search, 'sort'))).not.toContain('"amount"');
    expect(filterTable(search).has('amount')).toBe(true); // filtering is a separate permission
    const document = argSchema(toolFor(tools, 'write'), 'document')?.properties as JsonObject;
    expect(Object.keys(document)).not.toContain('amount');
  });

  it('synthesis - the write document declares only visible scalar fields, typed and nullable', () => {
    const resource = writableOrders();
    resource.spec.access.rowFilter = { field: 'user_id', equals: 'principal.agent' };
    const write = toolFor(synthesizeTools(resource, permissions(resource)), 'write');
    const document = argSchema(write, 'document') as JsonObject;
    expect(document.additionalProperties).toBe(false);
    const properties = document.properties as Record<string, JsonObject>;
    expect(Object.keys(properties)).toEqual([
      'amount',
      'client_ip',
      'created_at',
      'customer.email',
      'customer.name',
      'customer.tier',
      'discount_rate',
      'gift',
      'id',
      'loyalty_points',
      'note',
      'quantity',
      'status',
    ]);
    expect(properties.amount).toEqual({ type: ['number', 'null'] });
    expect(properties.note).toEqual({ type: ['string', 'null'], maxLength: 8192 });
    expect(properties.created_at).toEqual({ type: ['string', 'null'], format: 'date-time' });
    expect(properties.client_ip?.anyOf).toContainEqual({ type: 'null' });
    expect(write.inputSchema.required).toEqual(['id', 'document']);
  });

  it('synthesis - every object forbids additional properties and no schema admits anything', () => {
    const tools = synthesizeTools(writableOrders(), permissions(writableOrders()));
    for (const tool of tools) {
      expect(tool.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      walk(tool.inputSchema, (node, path) => {
        const types = ([] as unknown[]).concat(node.type ?? []);
        if (types.includes('object'))
          expect(node.additionalProperties, `${tool.name}${path}`).toBe(false);
        const constrained =
          types.length > 0 || 'anyOf' in node || 'const' in node || 'enum' in node;
        expect(constrained, `${tool.name}${path}`).toBe(true);
      });
    }
  });

  it('synthesis - same inputs give byte-identical tools and version hashes', () => {
    const first = synthesizeTools(writableOrders(), permissions(writableOrders()));
    const reordered = writableOrders();
    reordered.spec.schema.fields = Object.fromEntries(
      Object.entries(reordered.spec.schema.fields).reverse(),
    );
    const p = permissions(writableOrders());
    const shuffled: PermissionSet = {
      operations: [...p.operations].reverse(),
      visibleFields: [...p.visibleFields].reverse(),
      filterableFields: [...p.filterableFields, ...p.filterableFields],
      limitCap: p.limitCap,
    };
    const second = synthesizeTools(reordered, shuffled);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    for (const tool of first) {
      expect(tool.version).toMatch(/^[0-9a-f]{64}$/);
      expect(toolVersionHash(tool)).toBe(tool.version);
    }
    expect(new Set(first.map((t) => t.version)).size).toBe(first.length);
  });

  it('synthesis - the version hash changes with the resource version and the description', () => {
    const [base] = synthesizeTools(orders(), permissions(orders()));
    const [bumped] = synthesizeTools({ ...orders(), version: 8 }, permissions(orders()));
    const described = orders();
    described.spec.schema.fields.amount = {
      ...described.spec.schema.fields.amount!,
      description: 'Total in USD',
    };
    const [redescribed] = synthesizeTools(described, permissions(orders()));
    expect(bumped?.version).not.toBe(base?.version);
    expect(redescribed?.version).not.toBe(base?.version);
    expect(redescribed?.inputSchema).toEqual(base?.inputSchema);
  });

  it('synthesis - a permission naming an undeclared field is an error naming it', () => {
    const bad = { ...permissions(orders()), filterableFields: ['amount', 'secret_margin'] };
    expect(() => synthesizeTools(orders(), bad)).toThrow(TollgateError);
    expect(() => synthesizeTools(orders(), bad)).toThrow(
      'permission filterableFields names "secret_margin", which resource es_orders v7 does not declare',
    );
    expect(() => synthesizeTools({ ...orders(), version: 0 }, permissions(orders()))).toThrow(
      'resource version must be a positive integer',
    );
    expect(() => synthesizeTools(orders(), permissions(orders()), { maxFilters: 0 })).toThrow(
      'synthesis option maxFilters must be a positive integer; found 0',
    );
  });

  it('synthesis - long resource names give unique, stable names of at most 64 characters', () => {
    const long = `es_${'a'.repeat(57)}`;
    const names = (['search', 'get', 'count', 'aggregate', 'write'] as const).map((op) =>
      toolName(long, op),
    );
    for (const name of names) expect(name.length).toBeLessThanOrEqual(64);
    expect(new Set(names).size).toBe(5);
    expect(toolName(long, 'aggregate')).toBe(toolName(long, 'aggregate'));
    expect(toolName(`${long}b`, 'search')).not.toBe(toolName(long, 'search'));
    expect(toolName('es_orders', 'search')).toBe('es_orders_search');
  });

  it('synthesis - descriptions say what the resource holds, when to use a tool and when not', () => {
    const tools = synthesizeTools(orders(), permissions(orders()));
    const search = toolFor(tools, 'search');
    expect(search.description).toContain('Orders placed in the web shop');
    expect(search.description).toContain('at most 100 per call');
    expect(search.description).toContain('Not for: one document by known id (use es_orders_get)');
    expect(search.description).toContain('amount: Order total in EUR, tax included;');
    expect(toolFor(tools, 'count').description).toContain(
      'Use for how-many questions; not to list documents (use es_orders_search).',
    );
    expect(toolFor(tools, 'count').description).toContain('Field meanings: see es_orders_search.');
    const alone = synthesizeTools(orders(), { ...permissions(orders()), operations: ['count'] });
    expect(alone[0]?.description).toContain('Use for how-many questions; not to list documents.');
    expect(alone[0]?.description).toContain(
      'status: One of pending, paid, shipped, delivered, cancelled',
    );
  });

  it('synthesis - descriptions and schemas never name fields the principal may not use', () => {
    for (const tool of synthesizeTools(orders(), permissions(orders(), SUPPORT))) {
      const text = JSON.stringify(tool);
      for (const hidden of [
        'user_id',
        'customer.email',
        'internal_note',
        'Notes from the warehouse',
      ]) {
        expect(text, tool.name).not.toContain(hidden);
      }
    }
  });

  it('synthesis - grouped layout shares one branch among fields with the same operators and values', () => {
    const p = permissions(orders());
    const grouped = toolFor(synthesizeTools(orders(), p, { filterLayout: 'grouped' }), 'search');
    const perField = toolFor(synthesizeTools(orders(), p, { filterLayout: 'per_field' }), 'search');
    expect(filterTable(grouped)).toEqual(filterTable(perField));
    const branches = (argSchema(grouped, 'filters')?.items as JsonObject).anyOf as JsonObject[];
    const exists = branches.find(
      (b) => (b.properties as Record<string, JsonObject>).op?.const === 'exists',
    );
    expect((exists?.properties as Record<string, JsonObject>).field).toEqual({
      type: 'string',
      enum: ['client_ip', 'customer.email', 'customer.tier', 'id', 'status', 'user_id'],
    });
    expect(branches.length).toBeLessThan(
      ((argSchema(perField, 'filters')?.items as JsonObject).anyOf as JsonObject[]).length,
    );
  });

  it('synthesis - a resource without usable fields yields only the tools that still make sense', () => {
    const none: PermissionSet = {
      operations: ['search', 'get', 'count', 'aggregate'],
      visibleFields: [],
      filterableFields: [],
      limitCap: 10,
    };
    const tools = synthesizeTools(orders(), none);
    expect(tools.map((t) => t.operation)).toEqual(['count']);
    expect(tools[0]?.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });

  it('synthesis - a 200-field resource synthesizes with every field accounted for', () => {
    const resource = wideResource(200);
    const tools = synthesizeTools(
      resource,
      permissions(resource, { roles: ['analyst'], agent: 'a' }),
    );
    expect(tools.map((t) => t.operation)).toEqual(['search', 'get', 'count', 'aggregate', 'write']);
    expect((argSchema(toolFor(tools, 'search'), 'fields')?.items as JsonObject).enum).toHaveLength(
      200,
    );
    expect(filterTable(toolFor(tools, 'count')).size).toBe(175); // 7 of every 8 fields filter
  });
});
