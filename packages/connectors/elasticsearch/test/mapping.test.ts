import { describe, expect, it } from 'vitest';

import { readMappingFields as readMappings } from '../src/discovery/mapping.js';

describe('read mappings', () => {
  it('mapping - flattens objects, multi-fields, nested, geo_point and unsupported types', () => {
    const schema = readMappings('orders', {
      orders: {
        mappings: {
          dynamic: 'strict',
          properties: {
            title: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
            price: { type: 'scaled_float', scaling_factor: 100 },
            at: { type: 'date', format: 'yyyy/MM/dd' },
            seen: { type: 'date_nanos' },
            customer: {
              properties: {
                email: { type: 'keyword', doc_values: false },
                age: { type: 'short', index: false },
              },
            },
            lines: { type: 'nested', properties: { sku: { type: 'keyword' } } },
            where: { type: 'geo_point' },
            blob: { type: 'flattened' },
            meta: { type: 'object', enabled: false },
          },
        },
      },
    });
    expect(schema).toEqual({
      target: 'orders',
      indices: [{ name: 'orders', dynamic: 'strict', sourceEnabled: true }],
      fields: [
        {
          path: 'at',
          type: 'date',
          nativeType: 'date',
          format: 'yyyy/MM/dd',
          indexed: true,
          docValues: true,
          inSource: true,
        },
        {
          path: 'customer',
          type: 'object',
          nativeType: 'object',
          indexed: false,
          docValues: false,
          inSource: true,
        },
        {
          path: 'customer.age',
          type: 'short',
          nativeType: 'short',
          indexed: false,
          docValues: true,
          inSource: true,
        },
        {
          path: 'customer.email',
          type: 'keyword',
          nativeType: 'keyword',
          indexed: true,
          docValues: false,
          inSource: true,
        },
        {
          path: 'lines',
          type: 'nested',
          nativeType: 'nested',
          indexed: false,
          docValues: false,
          inSource: true,
        },
        {
          path: 'lines.sku',
          type: 'keyword',
          nativeType: 'keyword',
          nestedPath: 'lines',
          indexed: true,
          docValues: true,
          inSource: true,
        },
        {
          path: 'meta',
          type: 'object',
          nativeType: 'object',
          indexed: false,
          docValues: false,
          inSource: true,
        },
        {
          path: 'price',
          type: 'scaled_float',
          nativeType: 'scaled_float',
          scalingFactor: 100,
          indexed: true,
          docValues: true,
          inSource: true,
        },
        {
          path: 'seen',
          type: 'date',
          nativeType: 'date_nanos',
          format: 'strict_date_optional_time||epoch_millis',
          indexed: true,
          docValues: true,
          inSource: true,
        },
        {
          path: 'title',
          type: 'text',
          nativeType: 'text',
          indexed: true,
          docValues: false,
          inSource: true,
        },
        {
          path: 'title.keyword',
          type: 'keyword',
          nativeType: 'keyword',
          multiFieldOf: 'title',
          indexed: true,
          docValues: true,
          inSource: false,
        },
        {
          path: 'where',
          type: 'geo_point',
          nativeType: 'geo_point',
          indexed: true,
          docValues: true,
          inSource: true,
        },
      ],
      conflicts: [],
      warnings: [
        {
          code: 'unsupported_type',
          field: 'blob',
          message:
            'Field "blob" has type flattened, which Tollgate does not support yet; it is left out.',
        },
        {
          code: 'nested_unsupported',
          field: 'lines',
          message:
            'Field "lines" is nested; its subfields can be returned but not yet filtered, sorted or aggregated.',
        },
        {
          code: 'geo_point_unsupported',
          field: 'where',
          message: 'Field "where" is a geo_point; it can be returned but not yet filtered.',
        },
      ],
    });
  });

  it('mapping - conflicting types across indices are conflicts, not fields', () => {
    const schema = readMappings('tg_x_*', {
      tg_x_2: {
        mappings: {
          properties: { code: { type: 'long' }, at: { type: 'date', format: 'epoch_millis' } },
        },
      },
      tg_x_1: {
        mappings: {
          _source: { enabled: false },
          dynamic: false,
          properties: { code: { type: 'keyword' }, at: { type: 'date' } },
        },
      },
    });
    expect(schema.indices).toEqual([
      { name: 'tg_x_1', dynamic: 'false', sourceEnabled: false },
      { name: 'tg_x_2', dynamic: 'true', sourceEnabled: true },
    ]);
    expect(schema.conflicts).toEqual([
      {
        path: 'code',
        types: [
          { index: 'tg_x_1', type: 'keyword' },
          { index: 'tg_x_2', type: 'long' },
        ],
      },
    ]);
    expect(schema.fields).toEqual([
      {
        path: 'at',
        type: 'date',
        nativeType: 'date',
        format: 'strict_date_optional_time||epoch_millis',
        indexed: true,
        docValues: true,
        inSource: false,
      },
    ]);
    expect(schema.warnings.map((warning) => warning.code)).toEqual([
      'source_disabled',
      'format_differs',
    ]);
  });

  it('mapping - an empty answer means nothing matched the target', () => {
    expect(() => readMappings('nope-*', {})).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: 'No index matches "nope-*".' }),
    );
  });

  it('mapping - a malformed answer is UPSTREAM_BAD_RESPONSE', () => {
    expect(() => readMappings('x', { x: { mappings: { properties: { a: 'keyword' } } } })).toThrow(
      expect.objectContaining({
        code: 'UPSTREAM_BAD_RESPONSE',
        message:
          'Elasticsearch returned an unexpected mapping: the mapping of "a" is not an object.',
      }),
    );
    expect(() => readMappings('x', [])).toThrow(
      expect.objectContaining({ code: 'UPSTREAM_BAD_RESPONSE' }),
    );
  });
});
