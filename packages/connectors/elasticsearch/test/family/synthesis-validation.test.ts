import { describe, expect, it } from 'vitest';
import { ToolValidatorCache, compileToolValidator, validateToolArguments } from '@tollgate/core';
import { permissionsFromAccess, synthesizeTools, validatorCache, kinds } from './bound.js';
import type { ArgumentValidation, PermissionSet, ToolDefinition } from '@tollgate/core';
import { orders, toolFor, writableOrders } from '../../../../core/test/synthesis-fixtures.js';

const resource = writableOrders();
const permissions = permissionsFromAccess(resource, {
  roles: ['support'],
  agent: 'support_bot',
}) as PermissionSet;
const tools = synthesizeTools(resource, permissions);
const search = toolFor(tools, 'search');

/** `path: message` lines of a failed validation. */
function problems(tool: ToolDefinition, args: unknown): string[] {
  const result = validateToolArguments(tool, args);
  if (result.ok) throw new Error(`expected ${JSON.stringify(args)} to be rejected`);
  return result.details.map((d) => `${d.path}: ${d.message}`);
}

describe('argument validation', () => {
  it('argument validation - valid arguments pass and come back without nulls', () => {
    const args = {
      filters: [
        { field: 'status', op: 'in', value: ['paid', 'shipped'] },
        { field: 'amount', op: 'between', value: [10, 99.5] },
        { field: 'created_at', op: 'gte', value: '2024-05-01T00:00:00Z' },
        { field: 'id', op: 'exists' },
        { field: 'note', op: 'match', value: 'gift wrap' },
        { field: 'client_ip', op: 'eq', value: '2001:db8::1' },
      ],
      fields: ['id', 'amount'],
      sort: [{ field: 'created_at', order: 'desc' }],
      limit: 50,
      cursor: null,
    };
    const { cursor: _cursor, ...rest } = args;
    expect(validateToolArguments(search, args)).toEqual({ ok: true, args: rest });
  });

  it('argument validation - a filter on a field the principal may not use lists the allowed fields', () => {
    expect(problems(search, { filters: [{ field: 'user_id', op: 'eq', value: 'u1' }] })).toEqual([
      'filters[0].field: expected one of amount, client_ip, created_at, customer.name, customer.tier, discount_rate, gift, id, loyalty_points, note, quantity, status; found "user_id"',
    ]);
    const result = validateToolArguments(search, {
      filters: [{ field: 'internal_note', op: 'match', value: 'x' }],
    });
    expect(result.ok === false && result.details[0]).toEqual({
      path: 'filters[0].field',
      message:
        'expected one of amount, client_ip, created_at, customer.name, customer.tier, discount_rate, gift, id, loyalty_points, note, quantity, status; found "internal_note"',
      expected:
        'one of amount, client_ip, created_at, customer.name, customer.tier, discount_rate, gift, id, loyalty_points, note, quantity, status',
      found: '"internal_note"',
    });
  });

  it('argument validation - an operator the field does not take lists the ones it does', () => {
    expect(problems(search, { filters: [{ field: 'id', op: 'gt', value: 'a' }] })).toEqual([
      'filters[0].op: expected one of eq, in, exists for field "id"; found "gt"',
    ]);
    expect(problems(search, { filters: [{ field: 'gift', value: true }] })).toEqual([
      'filters[0].op: expected one of eq for field "gift"; found nothing',
    ]);
    expect(
      problems(search, { filters: [{ field: 'loyalty_points', op: 'eq', value: 3 }] }),
    ).toEqual([
      'filters[0].op: expected one of gt, gte, lt, lte, between for field "loyalty_points"; found "eq"',
    ]);
  });

  it('argument validation - values are checked against the branch the field and op select', () => {
    expect(problems(search, { filters: [{ field: 'amount', op: 'gt', value: 'ten' }] })).toEqual([
      'filters[0].value: expected number; found string',
    ]);
    expect(problems(search, { filters: [{ field: 'amount', op: 'between', value: [1] }] })).toEqual(
      ['filters[0].value: expected at least 2 items; found 1 items'],
    );
    expect(
      problems(search, { filters: [{ field: 'created_at', op: 'lt', value: 'yesterday' }] }),
    ).toEqual([
      'filters[0].value: expected an ISO-8601 date-time such as 2024-05-01T12:00:00Z; found "yesterday"',
    ]);
    expect(problems(search, { filters: [{ field: 'quantity', op: 'eq', value: 1.5 }] })).toEqual([
      'filters[0].value: expected integer; found number',
    ]);
    expect(problems(search, { filters: [{ field: 'id', op: 'exists', value: true }] })).toEqual([
      'filters[0].value: unexpected property; expected only field, op',
    ]);
    expect(problems(search, { filters: [{ field: 'id', op: 'eq' }] })).toEqual([
      'filters[0].value: expected a value (required); found nothing',
    ]);
    expect(
      problems(search, { filters: [{ field: 'id', op: 'in', value: Array(101).fill('x') }] }),
    ).toEqual(['filters[0].value: expected at most 100 items; found 101 items']);
    expect(
      problems(search, { filters: [{ field: 'status', op: 'eq', value: 'x'.repeat(300) }] }),
    ).toEqual(['filters[0].value: expected at most 256 characters; found 300 characters']);
    expect(
      problems(search, { filters: [{ field: 'client_ip', op: 'eq', value: 'localhost' }] }),
    ).toEqual(['filters[0].value: expected an ipv4 string or an ipv6 string; found "localhost"']);
    expect(problems(search, { filters: ['status = paid'] })).toEqual([
      'filters[0]: expected an object; found "status = paid"',
    ]);
  });

  it('argument validation - top-level mistakes name the argument and what is allowed', () => {
    expect(problems(search, { limit: 500 })).toEqual([
      'limit: expected a number <= 100; found 500',
    ]);
    expect(problems(search, { limit: '10' })).toEqual([
      'limit: expected integer or null; found string',
    ]);
    expect(problems(search, { query: { match_all: {} } })).toEqual([
      'query: unexpected property; expected only filters, fields, sort, limit, cursor',
    ]);
    expect(problems(search, { fields: ['id', 'user_id'] })).toEqual([
      'fields[1]: expected one of amount, client_ip, created_at, customer.name, customer.tier, discount_rate, gift, id, items, loyalty_points, note, quantity, shipping_location, status; found "user_id"',
    ]);
    expect(problems(search, { fields: ['id', 'id'] })).toEqual([
      'fields: expected unique items; found items 1 and 0 are equal',
    ]);
    expect(problems(search, { sort: [{ field: 'note', order: 'asc' }] })).toEqual([
      'sort[0].field: expected one of amount, created_at, id; found "note"',
    ]);
    expect(problems(search, 'all orders')).toEqual([': expected object; found string']);
  });

  it('argument validation - every problem is reported at once', () => {
    expect(
      problems(search, {
        filters: [
          { field: 'id', op: 'eq', value: 1 },
          { field: 'secret', op: 'eq', value: 'x' },
        ],
        limit: 0,
        extra: true,
      }),
    ).toEqual([
      'extra: unexpected property; expected only filters, fields, sort, limit, cursor',
      'limit: expected a number >= 1; found 0',
      'filters[0].value: expected string; found integer',
      'filters[1].field: expected one of amount, client_ip, created_at, customer.name, customer.tier, discount_rate, gift, id, loyalty_points, note, quantity, status; found "secret"',
    ]);
  });

  it('argument validation - what a schema cannot say is checked after it', () => {
    expect(
      problems(search, { filters: [{ field: 'amount', op: 'between', value: [50, 10] }] }),
    ).toEqual(['filters[0].value: expected [low, high] with low <= high; found [50,10]']);
    expect(
      problems(search, {
        filters: [
          {
            field: 'created_at',
            op: 'between',
            value: ['2024-06-01T00:00:00Z', '2024-05-01T00:00:00Z'],
          },
        ],
      }),
    ).toEqual([
      'filters[0].value: expected [low, high] with low <= high; found ["2024-06-01T00:00:00Z","2024-05-01T00:00:00Z"]',
    ]);
    expect(
      problems(search, {
        sort: [
          { field: 'id', order: 'asc' },
          { field: 'id', order: 'desc' },
        ],
      }),
    ).toEqual(['sort[1].field: expected each field at most once; found "id"']);
    expect(
      problems(search, { filters: [{ field: 'loyalty_points', op: 'gt', value: 2 ** 60 }] }),
    ).toEqual([
      'filters[0].value: expected an integer between -(2^53 - 1) and 2^53 - 1; found 1152921504606847000',
    ]);
  });

  it('argument validation - aggregations are explained by kind, then field', () => {
    const aggregate = toolFor(tools, 'aggregate');
    expect(problems(aggregate, { aggregation: { kind: 'sum', field: 'amount' } })).toEqual([
      'aggregation.kind: expected one of terms, date_histogram, stats, cardinality; found "sum"',
    ]);
    expect(problems(aggregate, { aggregation: { kind: 'stats', field: 'status' } })).toEqual([
      'aggregation.field: expected one of amount for kind "stats"; found "status"',
    ]);
    expect(
      problems(aggregate, { aggregation: { kind: 'date_histogram', field: 'created_at' } }),
    ).toEqual(['aggregation.interval: expected a value (required); found nothing']);
    expect(
      problems(aggregate, { aggregation: { kind: 'terms', field: 'status', size: 1000 } }),
    ).toEqual(['aggregation.size: expected a number <= 100; found 1000']);
    expect(problems(aggregate, {})).toEqual([
      'aggregation: expected a value (required); found nothing',
    ]);
    expect(problems(aggregate, { aggregation: null })).toEqual([
      'aggregation: expected an object; found null',
    ]);
  });

  it('argument validation - writes take declared fields only, typed, and at least one', () => {
    const write = toolFor(tools, 'write');
    expect(
      validateToolArguments(write, { id: 'ORD-1', document: { status: 'paid', amount: null } }),
    ).toEqual({
      ok: true,
      args: { id: 'ORD-1', document: { status: 'paid' } },
    });
    expect(problems(write, { id: 'ORD-1', document: { internal_note: 'x' } })).toEqual([
      'document.internal_note: unexpected property; expected only amount, client_ip, created_at, customer.name, customer.tier, discount_rate, gift, id, loyalty_points, note, quantity, status',
    ]);
    expect(problems(write, { id: 'ORD-1', document: { 'customer.name': 7 } })).toEqual([
      'document["customer.name"]: expected string or null; found integer',
    ]);
    expect(problems(write, { id: 'ORD-1', document: { status: null } })).toEqual([
      'document: expected at least one field to set (not null); found none',
    ]);
    expect(problems(write, { document: { status: 'paid' } })).toEqual([
      'id: expected a value (required); found nothing',
    ]);
  });
});

describe('validator cache', () => {
  it('validator cache - compiles once per resource version and permission set', () => {
    const cache = validatorCache();
    const first = cache.validatorFor(resource, permissions, 'es_orders_search');
    const reordered: PermissionSet = {
      ...permissions,
      visibleFields: [...permissions.visibleFields].reverse(),
    };
    expect(cache.validatorFor(resource, reordered, 'es_orders_search')).toBe(first);
    expect(cache.size).toBe(1);
    expect(
      cache.validatorFor({ ...resource, version: 8 }, permissions, 'es_orders_search'),
    ).not.toBe(first);
    expect(
      cache.validatorFor(resource, { ...permissions, limitCap: 5 }, 'es_orders_search'),
    ).not.toBe(first);
    expect(
      cache.validatorFor(resource, permissions, 'es_orders_search', { maxFilters: 5 }),
    ).not.toBe(first);
    expect(cache.size).toBe(4);
  });

  it('validator cache - validates against exactly the schema the synthesizer handed out', () => {
    const cache = validatorCache();
    const set = cache.toolSet(resource, permissions);
    expect(set.tools).toEqual(tools);
    expect(set.validator('es_orders_write')?.tool).toEqual(toolFor(tools, 'write'));
    expect(set.validator('es_orders_delete')).toBeUndefined();
    const verdict: ArgumentValidation | undefined = set
      .validator('es_orders_search')
      ?.validate({ limit: 101 });
    expect(verdict).toEqual(validateToolArguments(search, { limit: 101 }));
    const ops = permissionsFromAccess(resource, {
      roles: ['order_ops'],
      agent: 'ops_bot',
    }) as PermissionSet;
    const args = { filters: [{ field: 'user_id', op: 'eq', value: 'u1' }] };
    expect(cache.validatorFor(resource, ops, 'es_orders_search')?.validate(args).ok).toBe(true);
    expect(cache.validatorFor(resource, permissions, 'es_orders_search')?.validate(args).ok).toBe(
      false,
    );
  });

  it('validator cache - evicts the least recently used tool set beyond its bound', () => {
    const cache = new ToolValidatorCache({ kinds, maxEntries: 2 });
    const v1 = { ...orders(), version: 1 };
    const v2 = { ...orders(), version: 2 };
    const v3 = { ...orders(), version: 3 };
    const p = permissionsFromAccess(v1, { roles: ['support'], agent: 'a' }) as PermissionSet;
    const a = cache.toolSet(v1, p);
    cache.toolSet(v2, p);
    expect(cache.toolSet(v1, p)).toBe(a); // v1 is now the most recent
    cache.toolSet(v3, p); // evicts v2
    expect(cache.size).toBe(2);
    expect(cache.toolSet(v1, p)).toBe(a);
    expect(() => new ToolValidatorCache({ kinds, maxEntries: 0 })).toThrow(
      'maxEntries must be a positive integer; found 0',
    );
  });

  it('validator cache - the compiled check and the full validation agree', () => {
    const validator = compileToolValidator(search);
    expect(validator.matches({ filters: [{ field: 'id', op: 'eq', value: 'ORD-1' }] })).toBe(true);
    expect(validator.matches({ filters: [{ field: 'id', op: 'gt', value: 'ORD-1' }] })).toBe(false);
    expect(validator.matches({ aggregation: {} })).toBe(false);
  });
});
