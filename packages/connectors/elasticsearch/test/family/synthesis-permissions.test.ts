import { describe, expect, it } from 'vitest';
import { normalizePermissions, permissionSetHash } from '@tollgate/core';
import { permissionsFromAccess, synthesizeTools } from './bound.js';
import type { JsonObject, JsonValue, PermissionSet, ToolDefinition } from '@tollgate/core';
import {
  filterTable,
  orders,
  toolFor,
  writableOrders,
} from '../../../../core/test/synthesis-fixtures.js';

/**
 * The tool's schema with `fields` removed everywhere (enum members, filter branches; the
 * `fields` argument's maxItems follows its enum) and `limit` capped at `limitCap`.
 */
function pruned(schema: JsonValue, fields: Set<string>, limitCap: number): JsonValue {
  if (Array.isArray(schema)) {
    return schema
      .filter((item) => !(typeof item === 'string' && fields.has(item)))
      .filter((item) => !isBranchOn(item, fields))
      .map((item) => pruned(item, fields, limitCap));
  }
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) out[key] = pruned(value, fields, limitCap);
  if (out.description === 'Most documents to return.') out.maximum = limitCap;
  const items = out.items as JsonObject | undefined;
  if (out.uniqueItems === true && Array.isArray(items?.enum)) out.maxItems = items.enum.length;
  return out;
}

function isBranchOn(item: JsonValue, fields: Set<string>): boolean {
  const field = (item as { properties?: { field?: { const?: string } } })?.properties?.field?.const;
  return field !== undefined && fields.has(field);
}

describe('permissions', () => {
  it('permissions - roles outside allowedRoles get nothing', () => {
    expect(permissionsFromAccess(orders(), { roles: ['finance'], agent: 'x' })).toBeUndefined();
    expect(permissionsFromAccess(orders(), { roles: [], agent: 'x' })).toBeUndefined();
  });

  it('permissions - derived from the access block: fieldRoles, returnable, filter capabilities, cap', () => {
    const support = permissionsFromAccess(orders(), { roles: ['support'], agent: 'bot' });
    expect(support).toEqual({
      operations: ['aggregate', 'count', 'get', 'search'],
      visibleFields: [
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
      ],
      filterableFields: [
        'amount',
        'client_ip',
        'created_at',
        'customer.name',
        'customer.tier',
        'discount_rate',
        'gift',
        'id',
        'loyalty_points',
        'note',
        'quantity',
        'status',
      ],
      limitCap: 100,
    });
    const ops = permissionsFromAccess(orders(), { roles: ['support', 'order_ops'], agent: 'bot' });
    expect(ops?.visibleFields).toContain('user_id');
    expect(ops?.filterableFields).toContain('customer.email');
  });

  it('permissions - write only for resources declared readonly: false; maxLimit defaults to 100', () => {
    expect(
      permissionsFromAccess(writableOrders(), { roles: ['support'], agent: 'b' })?.operations,
    ).toContain('write');
    const resource = orders();
    delete resource.spec.access.maxLimit;
    delete resource.spec.access.readonly;
    const p = permissionsFromAccess(resource, { roles: ['support'], agent: 'b' });
    expect(p?.limitCap).toBe(100);
    expect(p?.operations).not.toContain('write');
  });

  it('permissions - the hash ignores order and duplicates and changes with content', () => {
    const p: PermissionSet = {
      operations: ['get', 'search'],
      visibleFields: ['b', 'a'],
      filterableFields: ['a'],
      limitCap: 10,
    };
    const same: PermissionSet = {
      operations: ['search', 'get', 'get'],
      visibleFields: ['a', 'b', 'a'],
      filterableFields: ['a'],
      limitCap: 10,
    };
    expect(permissionSetHash(same)).toBe(permissionSetHash(p));
    expect(permissionSetHash(p)).toMatch(/^[0-9a-f]{64}$/);
    expect(permissionSetHash({ ...p, limitCap: 11 })).not.toBe(permissionSetHash(p));
    expect(permissionSetHash({ ...p, filterableFields: [] })).not.toBe(permissionSetHash(p));
    expect(normalizePermissions(same)).toEqual({
      operations: ['get', 'search'],
      visibleFields: ['a', 'b'],
      filterableFields: ['a'],
      limitCap: 10,
    });
  });

  it('permissions - malformed permission sets are rejected with the offending member', () => {
    const base: PermissionSet = {
      operations: ['search'],
      visibleFields: [],
      filterableFields: [],
      limitCap: 10,
    };
    expect(() => normalizePermissions({ ...base, limitCap: 0 })).toThrow(
      'permission limitCap must be a positive integer',
    );
    expect(() => normalizePermissions({ ...base, limitCap: 2.5 })).toThrow(
      'permission limitCap must be a positive integer',
    );
    expect(() => normalizePermissions({ ...base, operations: ['Drop'] })).toThrow(
      'invalid operation name "Drop"',
    );
    // Names reserved for the Cedar action groups and field actions are not operations.
    expect(() => normalizePermissions({ ...base, operations: ['view_field'] })).toThrow(
      'invalid operation name "view_field"',
    );
  });

  it('permissions - two principals get tools that differ exactly by their permission differences', () => {
    const resource = orders();
    const ops = permissionsFromAccess(resource, { roles: ['order_ops'], agent: 'ops_bot' });
    const support = permissionsFromAccess(resource, { roles: ['support'], agent: 'support_bot' });
    if (ops === undefined || support === undefined) throw new Error('both principals are allowed');
    const narrowed: PermissionSet = { ...support, limitCap: 20 };
    // Branch by branch: one per field, so a hidden field's branch goes and nothing else.
    const a = synthesizeTools(resource, ops, { filterLayout: 'per_field' });
    const b = synthesizeTools(resource, narrowed, { filterLayout: 'per_field' });
    const hidden = new Set(ops.visibleFields.filter((f) => !narrowed.visibleFields.includes(f)));
    const unfilterable = new Set(
      ops.filterableFields.filter((f) => !narrowed.filterableFields.includes(f)),
    );
    expect([...hidden]).toEqual(['customer.email', 'user_id']);
    expect([...unfilterable]).toEqual(['customer.email', 'user_id']);

    expect(b.map((t) => t.name)).toEqual(a.map((t) => t.name));
    for (const [index, toolA] of a.entries()) {
      const toolB = b[index] as ToolDefinition;
      // Schemas: A's schema minus exactly the fields B may not use, with B's limit.
      expect(toolB.inputSchema, toolA.name).toEqual(pruned(toolA.inputSchema, hidden, 20));
      // Filters: the (field, op) pairs lost are exactly those of the fields B may not filter on.
      const pairs = (t: ToolDefinition): string[] =>
        [...filterTable(t)].flatMap(([field, row]) =>
          [...row.keys()].map((op) => `${field}:${op}`),
        );
      const lost = pairs(toolA).filter((pair) => !pairs(toolB).includes(pair));
      expect(new Set(lost.map((pair) => pair.split(':')[0]))).toEqual(
        toolA.inputSchema.properties && 'filters' in (toolA.inputSchema.properties as JsonObject)
          ? unfilterable
          : new Set(),
      );
      expect(pairs(toolB).every((pair) => pairs(toolA).includes(pair))).toBe(true);
    }
    const limit = (tools: ToolDefinition[]): unknown =>
      ((toolFor(tools, 'search').inputSchema.properties as JsonObject).limit as JsonObject).maximum;
    expect([limit(a), limit(b)]).toEqual([100, 20]);
    expect(toolFor(b, 'search').description).toContain('at most 20 per call');
    expect(toolFor(b, 'search').description).not.toContain('user_id');
  });
});
