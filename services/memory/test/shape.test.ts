import { describe, expect, it } from 'vitest';
import { argumentShape, proposeSavedQuery, setAt, valueDigest } from '../src/learning/shape.js';
import type { ShapeUse } from '../src/learning/shape.js';
import type { JsonObject } from '../src/types.js';

const byId = (id: string, fields = ['id', 'amount', 'created_at']): JsonObject => ({
  filters: [{ field: 'id', op: 'eq', value: id }],
  fields,
  limit: 10,
});

function uses(...calls: JsonObject[]): ShapeUse[] {
  return calls.map((args, i) => {
    const shape = argumentShape(args);
    return {
      callId: `c${i}`,
      at: i,
      digests: Object.fromEntries(shape.slots.map((s) => [s.path, valueDigest(s.value)])),
    };
  });
}

describe('shape - argument shape', () => {
  it('shape - calls that differ only in values share a shape', () => {
    expect(argumentShape(byId('o-1')).key).toBe(argumentShape(byId('o-2')).key);
  });

  it('shape - field order, filter order, nulls and cursors do not change the shape', () => {
    const a = argumentShape({
      filters: [
        { field: 'status', op: 'eq', value: 'paid' },
        { field: 'amount', op: 'gte', value: 10 },
      ],
      fields: ['id', 'amount'],
      cursor: 'abc',
      sort: null,
    });
    const b = argumentShape({
      fields: ['amount', 'id', 'id'],
      filters: [
        { field: 'amount', op: 'gte', value: 99 },
        { field: 'status', op: 'eq', value: 'open' },
      ],
    });
    expect(a.key).toBe(b.key);
  });

  it.each([
    [
      'another filter field',
      {
        filters: [{ field: 'user_id', op: 'eq', value: 'o-1' }],
        fields: ['id', 'amount', 'created_at'],
        limit: 10,
      },
    ],
    [
      'another operator',
      {
        filters: [{ field: 'id', op: 'in', value: ['o-1'] }],
        fields: ['id', 'amount', 'created_at'],
        limit: 10,
      },
    ],
    ['other requested fields', byId('o-1', ['id'])],
    ['a sort', { ...byId('o-1'), sort: [{ field: 'amount', order: 'desc' }] }],
    [
      'no limit',
      {
        filters: [{ field: 'id', op: 'eq', value: 'o-1' }],
        fields: ['id', 'amount', 'created_at'],
      },
    ],
    ['a value of another type', { ...byId('o-1'), limit: 'ten' }],
  ])('shape - %s makes another shape', (_what, args) => {
    expect(argumentShape(args as JsonObject).key).not.toBe(argumentShape(byId('o-1')).key);
  });

  it('shape - slots are named after the filtered field, with the operator when a field repeats', () => {
    const shape = argumentShape({
      filters: [
        { field: 'amount', op: 'gte', value: 10 },
        { field: 'amount', op: 'lte', value: 99 },
        { field: 'id', op: 'eq', value: 'x' },
      ],
      aggregation: { kind: 'terms', field: 'status', size: 5 },
    });
    expect(shape.slots.map((s) => [s.path, s.name, s.type])).toEqual([
      ['/filters/0/value', 'amount_gte', 'integer'],
      ['/filters/1/value', 'amount_lte', 'integer'],
      ['/filters/2/value', 'id', 'string'],
      ['/aggregation/size', 'aggregation_size', 'integer'],
    ]);
  });
});

describe('shape - saved query proposal', () => {
  it('shape - every value becomes a parameter; the name says which varied', () => {
    const latest = argumentShape(byId('o-3'));
    const proposal = proposeSavedQuery(
      'es_orders_search',
      latest,
      uses(byId('o-1'), byId('o-2'), byId('o-3')),
      new Set(),
    );
    expect(proposal).toEqual({
      name: 'es_orders_search_by_id',
      description: expect.stringContaining('id, limit supplied by the caller') as string,
      tool: 'es_orders_search',
      arguments: {
        filters: [{ field: 'id', op: 'eq', value: null }],
        fields: ['amount', 'created_at', 'id'],
        limit: null,
      },
      parameters: [
        { name: 'id', path: '/filters/0/value', type: 'string', description: 'Value for id.' },
        { name: 'limit', path: '/limit', type: 'integer', description: 'Value for limit.' },
      ],
    });
  });

  it('shape - a one-off value repeated by an agent is still a parameter, never a constant', () => {
    const latest = argumentShape(byId('o-1'));
    const proposal = proposeSavedQuery(
      'es_orders_search',
      latest,
      uses(byId('o-1'), byId('o-1'), byId('o-1')),
      new Set(),
    );
    expect(proposal.parameters.map((p) => p.name)).toEqual(['id', 'limit']);
    expect(proposal.name).toBe('es_orders_search_by_id_limit');
    expect(JSON.stringify(proposal.arguments)).not.toContain('o-1');
  });

  it('shape - values that must not be kept are parameters even when equal', () => {
    const latest = argumentShape(byId('o-1'));
    const proposal = proposeSavedQuery(
      'es_orders_search',
      latest,
      uses(byId('o-1'), byId('o-1')),
      new Set(['/filters/0/value']),
    );
    expect(proposal.parameters.map((p) => p.name)).toEqual(['id', 'limit']);
    expect((proposal.arguments['filters'] as JsonObject[])[0]?.['value']).toBeNull();
  });

  it('shape - a proposal named after a long tool still fits a saved-query name (sq_<name> ≤ 64)', () => {
    const tool = `es_${'very_long_resource_name_'.repeat(2)}search`.slice(0, 64);
    const calls = [0, 1, 2].map((i) => ({
      filters: [
        { field: 'customer_identifier', op: 'eq', value: `c-${i}` },
        { field: 'warehouse_location_code', op: 'eq', value: `w-${i}` },
      ],
    }));
    const proposal = proposeSavedQuery(tool, argumentShape(calls[2]!), uses(...calls), new Set());
    expect(proposal.parameters).toHaveLength(2);
    expect(proposal.name.length).toBeLessThanOrEqual(61);
    expect(proposal.name).toMatch(/^[a-z][a-z0-9_]*[a-z0-9]$/);
    expect(proposal.name.startsWith('es_very_long_resource_name_')).toBe(true);
  });

  it('shape - setAt writes only where the parent exists', () => {
    const args: JsonObject = { filters: [{ field: 'id', value: 1 }] };
    expect(setAt(args, '/filters/0/value', null)).toBe(true);
    expect(setAt(args, '/filters/3/value', null)).toBe(false);
    expect(setAt(args, '/nope/x', null)).toBe(false);
    expect(setAt(args, '/limit', 5)).toBe(true);
    expect(args).toEqual({ filters: [{ field: 'id', value: null }], limit: 5 });
  });
});
