import { readFileSync } from 'node:fs';
import { create } from '@bufbuild/protobuf';
import { fromJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { DiffEntrySchema, DiffOperation } from '@tollgate/contracts/common/v1';
import type { JsonObject } from '@bufbuild/protobuf';
import { toolCallError } from '@tollgate/sdk';
import { describe, expect, it } from 'vitest';
import {
  compareShapes,
  createStyle,
  diffLines,
  plainOutcome,
  renderData,
  renderDiff,
  renderOutcome,
  renderSinceCurrent,
  toolShape,
} from '../src/index.js';

const plain = createStyle(false);
const golden = JSON.parse(
  readFileSync(
    new URL(
      '../../connectors/elasticsearch/test/family/golden/es_orders.json_schema.json',
      import.meta.url,
    ),
    'utf8',
  ),
) as Array<{ name: string; inputSchema: JsonObject }>;
const schemaOf = (name: string) => golden.find((t) => t.name === name)!.inputSchema;

describe('render - what a tool allows', () => {
  it('render - a search tool: filter fields with their operators, visible fields, sort keys, limit', () => {
    const shape = toolShape(schemaOf('es_orders_search'));
    expect(shape.filters.amount).toEqual(['eq', 'gt', 'gte', 'lt', 'lte', 'between']);
    expect(shape.filters.client_ip).toEqual(['eq', 'in', 'exists']);
    expect(Object.keys(shape.filters)).toEqual([...Object.keys(shape.filters)].sort());
    expect(shape.fields).toContain('customer.email');
    expect(shape.sort).toEqual(['amount', 'created_at', 'id']);
    expect(shape.limit).toBe(100);
    expect(shape.writable).toEqual([]);
  });

  it('render - write and aggregate tools list what they may set and compute', () => {
    expect(toolShape(schemaOf('es_orders_write')).writable).toContain('amount');
    const aggregate = toolShape(schemaOf('es_orders_aggregate'));
    expect(aggregate.aggregations.terms).toEqual(['amount', 'customer.tier', 'gift', 'status']);
  });

  it("render - comparing two agents' tools names what only one of them gets", () => {
    const full = toolShape(schemaOf('es_orders_search'));
    const narrow = { ...full, fields: full.fields.filter((f) => f !== 'user_id'), limit: 20 };
    narrow.filters = Object.fromEntries(
      Object.entries(full.filters).filter(([f]) => f !== 'user_id'),
    );
    expect(compareShapes(full, narrow)).toEqual([
      { aspect: 'filter fields', onlyA: ['user_id'], onlyB: [] },
      { aspect: 'visible fields', onlyA: ['user_id'], onlyB: [] },
      { aspect: 'limit', onlyA: ['100'], onlyB: ['20'] },
    ]);
  });
});

describe('render - diffs and envelopes', () => {
  it('render - discover says how the draft differs from the saved version, or that it does not', () => {
    expect(renderSinceCurrent(0, [], plain)).toEqual([]);
    expect(renderSinceCurrent(3, [], plain)).toEqual(['', '# no change since version 3']);
    const changes = [
      {
        path: 'spec.operations.listTickets.response.priority.type',
        operation: 'changed' as const,
        before: 'string',
        after: 'integer',
      },
    ];
    expect(renderSinceCurrent(3, changes, plain)).toEqual([
      '',
      '# 1 change since version 3 (applying the draft saves them):',
      '    ~ spec.operations.listTickets.response.priority.type: string → integer',
    ]);
  });

  it('render - a wire diff becomes +/-/~ lines with values on one line', () => {
    const entry = (path: string, operation: DiffOperation, before?: unknown, after?: unknown) =>
      create(DiffEntrySchema, {
        path,
        operation,
        ...(before !== undefined ? { before: fromJson(ValueSchema, before as never) } : {}),
        ...(after !== undefined ? { after: fromJson(ValueSchema, after as never) } : {}),
      });
    const lines = diffLines([
      entry('spec.access.maxLimit', DiffOperation.CHANGED, 100, 50),
      entry('spec.schema.fields.gift', DiffOperation.ADDED, undefined, { type: 'boolean' }),
      entry('metadata.labels.team', DiffOperation.REMOVED, 'ops'),
      entry('ignored', DiffOperation.UNSPECIFIED),
    ]);
    expect(lines).toEqual([
      { path: 'spec.access.maxLimit', operation: 'changed', before: 100, after: 50 },
      { path: 'spec.schema.fields.gift', operation: 'added', after: { type: 'boolean' } },
      { path: 'metadata.labels.team', operation: 'removed', before: 'ops' },
    ]);
    expect(renderDiff(lines, plain, 2).split('\n')).toEqual([
      '    ~ spec.access.maxLimit: 100 → 50',
      '    + spec.schema.fields.gift: {"type":"boolean"}',
      '    … 1 more',
    ]);
  });

  it('render - an ok envelope shows the meta line and the rows as a table', () => {
    const outcome = plainOutcome({
      status: 'ok',
      callId: 'c1',
      data: [{ id: '12345', status: 'paid', customer: { name: 'Ana Li' } }],
      meta: {
        resource: 'es_orders',
        resourceVersion: 2,
        tool: 'es_orders_search',
        toolVersion: 'v',
        latencyMs: 12,
        upstreamStatus: 200,
        returned: 1,
        total: 1,
        truncated: false,
        bytes: 80,
        traceId: 'abc123',
      },
    });
    expect(renderOutcome(outcome, plain).split('\n')).toEqual([
      'ok es_orders_search es_orders@v2 · 1 of 1 returned · 12 ms · trace abc123',
      'id     status  customer.name',
      '12345  paid    Ana Li',
    ]);
  });

  it('render - an error envelope carries code, category and details; a parked one says how to approve', () => {
    const error = plainOutcome({
      status: 'error',
      callId: 'c2',
      error: toolCallError({
        code: 'ARGUMENTS_INVALID',
        message: 'Arguments do not match es_orders_search: 1 problem',
        details: [{ path: '/limit', message: 'too large', expected: 'a number <= 20' }],
      }),
      meta: undefined,
    });
    expect(error.error).toEqual({
      code: 'ARGUMENTS_INVALID',
      category: 'fix_arguments',
      message: 'Arguments do not match es_orders_search: 1 problem',
      details: [{ path: '/limit', message: 'too large', expected: 'a number <= 20' }],
    });
    expect(renderOutcome(error, plain)).toBe(
      'error ARGUMENTS_INVALID (fix_arguments): Arguments do not match es_orders_search: 1 problem\n  /limit: too large',
    );
    const parked = renderOutcome(
      { callId: 'c3', status: 'pending_approval', approvalId: 'ap-1' },
      plain,
    );
    expect(parked).toContain('tollgate approvals approve ap-1');
  });
});

describe('render - result data', () => {
  it('render - one wide row is shown field by field; several rows as a table', () => {
    const row = { id: '1', a: 1, b: 2, c: 3, d: 4, e: { f: 5, g: 6 } };
    expect(renderData([row], plain).split('\n')).toEqual([
      'id:  1',
      'a:   1',
      'b:   2',
      'c:   3',
      'd:   4',
      'e.f: 5',
      'e.g: 6',
    ]);
    expect(renderData([{ id: '1' }, { id: '2', x: true }], plain).split('\n')).toEqual([
      'id  x',
      '1',
      '2   true',
    ]);
    expect(renderData([], plain)).toBe('(no results)');
    expect(renderData({ count: 3 } as never, plain)).toBe('count\n3');
  });
});
