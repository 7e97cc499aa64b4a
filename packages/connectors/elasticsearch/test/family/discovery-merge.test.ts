import { describe, expect, it } from 'vitest';

import type { FieldSpec } from '@tollgate/core';
import { mergeSchema } from './bound.js';
import type { DiscoveredField, DiscoveredSchema } from '@tollgate/core';
import { toDiscoveredField } from '../../src/discovery/capabilities.js';
import type { MappedField } from '../../src/discovery/capabilities.js';

const NONE = {
  filterable: false,
  returnable: false,
  sortable: false,
  range: false,
  searchable: false,
  aggregatable: false,
};

function field(
  path: string,
  type: MappedField['type'],
  extra: Partial<MappedField> = {},
): DiscoveredField {
  return toDiscoveredField({
    path,
    type,
    nativeType: type,
    indexed: true,
    docValues: type !== 'text',
    inSource: true,
    ...extra,
  });
}

function discovered(
  fields: DiscoveredField[],
  extra: Partial<DiscoveredSchema> = {},
): DiscoveredSchema {
  return {
    target: 'orders',
    sources: [{ name: 'orders', objectType: 'index' }],
    fields,
    conflicts: [],
    warnings: [],
    sourceNoun: { one: 'index', many: 'indices' },
    ...extra,
  };
}

describe('merge schema', () => {
  it('merge - discovery wins on type and format, the declaration on capabilities and description', () => {
    const declared: Record<string, FieldSpec & { format?: string }> = {
      amount: { type: 'double', range: true, returnable: true, description: 'Order total' },
      created_at: { type: 'date', range: true, returnable: true, format: 'yyyy-MM-dd' },
    };
    const result = mergeSchema(
      declared,
      discovered([
        field('amount', 'scaled_float', { scalingFactor: 100 }),
        field('created_at', 'date', { format: 'epoch_millis' }),
      ]),
    );
    expect(result.fields).toEqual({
      amount: {
        type: 'scaled_float',
        description: 'Order total',
        ...NONE,
        range: true,
        returnable: true,
      },
      created_at: { type: 'date', format: 'epoch_millis', ...NONE, range: true, returnable: true },
    });
    expect(result.issues).toEqual([
      {
        severity: 'warning',
        code: 'type_mismatch',
        field: 'amount',
        message:
          'Field "amount" is declared as double but the index has it as scaled_float; using scaled_float.',
      },
    ]);
    expect(result.ok).toBe(true);
    expect(result.proposed).toEqual({});
  });

  it('merge - a type from another family is an error', () => {
    const result = mergeSchema(
      { code: { type: 'keyword', filterable: true } },
      discovered([field('code', 'long')]),
    );
    expect(result.fields['code']).toEqual({ type: 'long', ...NONE, filterable: true });
    expect(result.issues).toEqual([
      {
        severity: 'error',
        code: 'type_mismatch',
        field: 'code',
        message: 'Field "code" is declared as keyword but the index has it as long; using long.',
      },
    ]);
    expect(result.ok).toBe(false);
  });

  it('merge - a declared field missing from the index is kept with a warning', () => {
    const result = mergeSchema({ later: { type: 'keyword', filterable: true } }, discovered([]));
    expect(result.fields).toEqual({ later: { type: 'keyword', ...NONE, filterable: true } });
    expect(result.issues).toEqual([
      {
        severity: 'warning',
        code: 'missing_in_source',
        field: 'later',
        message: 'Declared field "later" is not in the index orders (yet); it is kept as declared.',
      },
    ]);
    expect(result.ok).toBe(true);
  });

  it('merge - undeclared fields are proposed but stay unexposed until confirmed', () => {
    const result = mergeSchema(
      {},
      discovered([
        field('title', 'text'),
        field('title.keyword', 'keyword', { multiFieldOf: 'title', inSource: false }),
        field('amount', 'double'),
        field('customer', 'object', { indexed: false, docValues: false }),
        field('lines.sku', 'keyword', { nestedPath: 'lines' }),
        field('where', 'geo_point'),
        field('paid', 'boolean'),
      ]),
    );
    expect(result.fields).toEqual({
      amount: { type: 'double', ...NONE },
      customer: { type: 'object', ...NONE },
      'lines.sku': { type: 'keyword', ...NONE },
      paid: { type: 'boolean', ...NONE },
      title: { type: 'text', ...NONE },
      'title.keyword': { type: 'keyword', ...NONE },
      where: { type: 'geo_point', ...NONE },
    });
    expect(result.proposed).toEqual({
      amount: {
        type: 'double',
        filterable: true,
        returnable: true,
        sortable: true,
        range: true,
        searchable: false,
        aggregatable: true,
      },
      customer: { type: 'object', ...NONE },
      'lines.sku': { type: 'keyword', ...NONE, returnable: true },
      paid: {
        type: 'boolean',
        filterable: true,
        returnable: true,
        sortable: true,
        range: false,
        searchable: false,
        aggregatable: true,
      },
      title: { type: 'text', ...NONE, returnable: true, searchable: true },
      'title.keyword': {
        type: 'keyword',
        ...NONE,
        filterable: true,
        sortable: true,
        aggregatable: true,
      },
      where: { type: 'geo_point', ...NONE, returnable: true },
    });
    expect(Object.keys(result.fields)).toEqual(Object.keys(result.fields).sort());
  });

  it('merge - capabilities the mapping cannot support are removed with a warning', () => {
    const result = mergeSchema(
      {
        'title.keyword': { type: 'keyword', returnable: true, filterable: true },
        'lines.sku': { type: 'keyword', filterable: true, returnable: true },
        email: { type: 'keyword', filterable: true, sortable: true },
        where: { type: 'geo_point', filterable: true },
      },
      discovered([
        field('title.keyword', 'keyword', { multiFieldOf: 'title', inSource: false }),
        field('lines.sku', 'keyword', { nestedPath: 'lines' }),
        field('email', 'keyword', { indexed: false, docValues: false }),
        field('where', 'geo_point'),
      ]),
    );
    expect(result.fields).toEqual({
      email: { type: 'keyword', ...NONE },
      'lines.sku': { type: 'keyword', ...NONE, returnable: true },
      'title.keyword': { type: 'keyword', ...NONE, filterable: true },
      where: { type: 'geo_point', ...NONE },
    });
    expect(result.issues.map((issue) => issue.message)).toEqual([
      'Field "email" cannot be filterable because it is not indexed; the capability is removed.',
      'Field "email" cannot be sortable because its doc_values are disabled; the capability is removed.',
      'Field "lines.sku" cannot be filterable because it is inside nested field "lines", and nested queries are not supported yet; the capability is removed.',
      'Field "title.keyword" cannot be returnable because it is a multi-field of "title" and not stored in documents; the capability is removed.',
      'Field "where" cannot be filterable because geo_point fields do not support it; the capability is removed.',
    ]);
    expect(
      result.issues.every(
        (issue) => issue.severity === 'warning' && issue.code === 'capability_unsupported',
      ),
    ).toBe(true);
  });

  it('merge - a declared field with conflicting types across indices is an error; undeclared ones are left out', () => {
    const result = mergeSchema(
      { code: { type: 'keyword', filterable: true } },
      discovered([], {
        conflicts: [
          {
            path: 'code',
            types: [
              { source: 'tg_x_1', type: 'keyword' },
              { source: 'tg_x_2', type: 'long' },
            ],
          },
          {
            path: 'other',
            types: [
              { source: 'tg_x_1', type: 'text' },
              { source: 'tg_x_2', type: 'long' },
            ],
          },
        ],
      }),
    );
    expect(result.issues).toEqual([
      {
        severity: 'error',
        code: 'type_conflict',
        field: 'code',
        message:
          'Declared field "code" has different types across the target\'s indices (tg_x_1: keyword, tg_x_2: long).',
      },
    ]);
    expect(result.fields).toEqual({ code: { type: 'keyword', ...NONE, filterable: true } });
    expect(result.ok).toBe(false);
  });

  it('merge - discovery warnings are carried into the issues', () => {
    const warning = { code: 'nested_unsupported' as const, field: 'lines', message: 'nested' };
    expect(mergeSchema({}, discovered([], { warnings: [warning] })).issues).toEqual([
      { severity: 'warning', ...warning },
    ]);
  });

  it('merge - hostile field names stay ordinary keys', () => {
    const declared = JSON.parse('{"__proto__":{"type":"keyword","filterable":true}}') as Record<
      string,
      FieldSpec
    >;
    const result = mergeSchema(declared, discovered([field('constructor', 'keyword')]));
    expect(Object.keys(result.fields).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(result.fields)).toBe(Object.prototype);
    expect(Object.hasOwn(result.proposed, 'constructor')).toBe(true);
  });
});
