/**
 * The table family through a kind that is not Elasticsearch: pattern text search, `is_null`,
 * inserts and updates by primary key, composite keys, decimals as strings, enums, redactions
 * with exempt roles, operation classes on the tools. Everything here comes from the kind's
 * traits and dialect, nothing from a kind name.
 */
import { describe, expect, it } from 'vitest';
import {
  createStrictAjv,
  permissionsFromAccess,
  renderTool,
  synthesizeTools,
  validateDescriptor,
} from '../src/index.js';
import type {
  JsonObject,
  PermissionSet,
  ResourceDescriptor,
  VersionedResource,
} from '../src/index.js';
import { sampleKind, sampleKinds } from './support/sample-kind.js';

function orders(overrides: Partial<ResourceDescriptor['spec']['access']> = {}): VersionedResource {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name: 'shop_orders', tenant: 'team-a', environment: 'prod' },
    spec: {
      type: 'sample',
      connection: { url: 'sample://shop' },
      target: { table: 'shop.orders' },
      schema: {
        fields: {
          region: { type: 'string', key: true, filterable: true, returnable: true },
          order_no: { type: 'int32', key: true, filterable: true, returnable: true, range: true },
          status: {
            type: 'string',
            enum: ['open', 'paid', 'void'],
            filterable: true,
            returnable: true,
            aggregatable: true,
          },
          customer: { type: 'string', filterable: true, searchable: true, returnable: true },
          note: { type: 'text', searchable: true, returnable: true, nullable: true },
          total: { type: 'decimal', range: true, returnable: true, aggregatable: true },
          shipped_at: { type: 'timestamp', filterable: true, returnable: true, nullable: true },
          email: { type: 'string', returnable: true, aggregatable: true },
          payload: { type: 'json', returnable: true },
        },
      },
      access: {
        allowedRoles: ['support', 'ops'],
        readonly: false,
        maxLimit: 50,
        redact: { email: { rule: 'mask', exceptRoles: ['ops'] } },
        ...overrides,
      },
    },
    version: 3,
  } as VersionedResource;
}

function everything(resource: VersionedResource): PermissionSet {
  return {
    operations: ['search', 'get', 'count', 'aggregate', 'insert', 'update'],
    visibleFields: Object.keys(resource.spec.schema.fields),
    filterableFields: Object.keys(resource.spec.schema.fields),
    limitCap: 50,
  };
}

const byName = <T extends { name: string }>(tools: T[]) => new Map(tools.map((t) => [t.name, t]));

describe('table family', () => {
  it('family - the sample resource is valid for its kind, and capabilities must fit the class', () => {
    const { version: _version, ...descriptor } = orders();
    expect(validateDescriptor(descriptor, sampleKinds)).toMatchObject({ ok: true });
    const { version: _v, ...wrong } = orders();
    (wrong.spec.schema.fields.payload as unknown as JsonObject).filterable = true;
    (wrong.spec.schema.fields.note as unknown as JsonObject).range = true;
    const result = validateDescriptor(wrong, sampleKinds);
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual([
      'spec.schema.fields.note.range',
      'spec.schema.fields.payload.filterable',
    ]);
  });

  it('family - a writable table offers reads, insert and update, each with its class', () => {
    const resource = orders();
    const tools = synthesizeTools(resource, everything(resource), sampleKind);
    expect(tools.map((t) => [t.name, t.class, t.idempotent])).toEqual([
      ['shop_orders_search', 'read', true],
      ['shop_orders_get', 'read', true],
      ['shop_orders_count', 'read', true],
      ['shop_orders_aggregate', 'read', true],
      ['shop_orders_insert', 'write', false],
      ['shop_orders_update', 'write', true],
    ]);
    const mcp = tools.map((t) => renderTool(t, 'mcp').annotations);
    expect(mcp[0]).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(mcp[4]).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  });

  it('family - a read-only table offers no writes, whatever the permission set says', () => {
    const resource = orders({ readonly: true });
    const tools = synthesizeTools(resource, everything(resource), sampleKind);
    expect(tools.map((t) => t.operation)).toEqual(['search', 'get', 'count', 'aggregate']);
  });

  it('family - operators follow the dialect: patterns for text, is_null for nullable fields', () => {
    const resource = orders();
    const search = byName(
      synthesizeTools(resource, everything(resource), sampleKind, { filterLayout: 'per_field' }),
    ).get('shop_orders_search');
    const branches = (
      ((search?.inputSchema.properties as JsonObject).filters as JsonObject).items as JsonObject
    ).anyOf as JsonObject[];
    const opsOf = (field: string) =>
      branches
        .filter((b) => ((b.properties as JsonObject).field as JsonObject).const === field)
        .flatMap((b) => {
          const op = (b.properties as JsonObject).op as JsonObject;
          return (op.const !== undefined ? [op.const] : (op.enum as string[])) as string[];
        });
    expect(opsOf('customer')).toEqual(['eq', 'in', 'prefix', 'contains']);
    expect(opsOf('note')).toEqual(['prefix', 'contains']);
    expect(opsOf('shipped_at')).toEqual(['eq', 'is_null']);
    expect(opsOf('total')).toEqual(['gt', 'gte', 'lt', 'lte', 'between']);
    expect(opsOf('payload')).toEqual([]);
    expect(search?.description).toContain('Finds rows matching all filters');
  });

  it('family - values are typed: decimals as strings, enums closed, a composite key as `key`', () => {
    const resource = orders();
    const tools = byName(synthesizeTools(resource, everything(resource), sampleKind));
    const ajv = createStrictAjv();
    const search = ajv.compile(tools.get('shop_orders_search')!.inputSchema);
    expect(search({ filters: [{ field: 'total', op: 'gt', value: '12.50' }] })).toBe(true);
    expect(search({ filters: [{ field: 'total', op: 'gt', value: 12.5 }] })).toBe(false);
    expect(search({ filters: [{ field: 'total', op: 'gt', value: '1e5' }] })).toBe(false);
    expect(search({ filters: [{ field: 'status', op: 'eq', value: 'paid' }] })).toBe(true);
    expect(search({ filters: [{ field: 'status', op: 'eq', value: 'lost' }] })).toBe(false);
    expect(search({ filters: [{ field: 'customer', op: 'prefix', value: '' }] })).toBe(false);
    const get = ajv.compile(tools.get('shop_orders_get')!.inputSchema);
    expect(get({ key: { region: 'eu', order_no: 7 } })).toBe(true);
    expect(get({ key: { region: 'eu' } })).toBe(false);
    expect(get({ id: 'eu-7' })).toBe(false);
    const insert = ajv.compile(tools.get('shop_orders_insert')!.inputSchema);
    expect(insert({ values: { region: 'eu', order_no: 8, total: '3.00' } })).toBe(true);
    expect(insert({ values: { payload: { any: 'thing' } } })).toBe(false);
    const update = ajv.compile(tools.get('shop_orders_update')!.inputSchema);
    expect(update({ key: { region: 'eu', order_no: 7 }, values: { status: 'void' } })).toBe(true);
    expect(update({ values: { status: 'void' } })).toBe(false);
  });

  it('family - a single key column makes `id` typed as that column', () => {
    const resource = orders();
    delete (resource.spec.schema.fields.region as unknown as JsonObject).key;
    const get = byName(synthesizeTools(resource, everything(resource), sampleKind)).get(
      'shop_orders_get',
    )!;
    expect((get.inputSchema.properties as JsonObject).id).toMatchObject({ type: 'integer' });
    expect(get.inputSchema.required).toEqual(['id']);
  });

  it('family - a role exempt from a redaction may aggregate and sees the field; others do not', () => {
    const resource = orders();
    const support = permissionsFromAccess(
      resource,
      { roles: ['support'], agent: 'bot' },
      sampleKind.operations(resource),
    )!;
    const ops = permissionsFromAccess(
      resource,
      { roles: ['ops'], agent: 'ops_bot' },
      sampleKind.operations(resource),
    )!;
    expect(support.unredactedFields).toBeUndefined();
    expect(ops.unredactedFields).toEqual(['email']);
    // Exemption is part of the permission set, so the two get different (cached) tool sets.
    expect(synthesizeTools(resource, ops, sampleKind)).not.toEqual(
      synthesizeTools(resource, support, sampleKind),
    );
  });
});
