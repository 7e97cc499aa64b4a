import { describe, expect, it } from 'vitest';

import { fitToBytes } from '../src/connector/budget.js';
import { DEFAULT_LIMITS, filterOpsOf, traitsOrOpaque } from '../src/index.js';
import type { FieldSpec } from '../src/index.js';
import { sampleModel } from './support/sample-kind.js';
import { DROPPED, redactValue } from '../src/connector/redact.js';

describe('shaping helpers', () => {
  it.each([
    ['mask', 'ann@example.com', '***'],
    ['mask', 42, '***'],
    ['mask', null, null],
    ['mask', { a: 1 }, '***'],
    ['last4', '4111111111111234', '***1234'],
    ['last4', 'abcd', '***'],
    ['last4', 123456, '***3456'],
    ['hash', 'x', 'sha256:2d711642b726b044'],
    ['mask', ['a', 'b'], ['***', '***']],
    ['drop', 'x', DROPPED],
  ] as const)('redact - %s of %j', (rule, value, expected) => {
    expect(redactValue(value, rule)).toEqual(expected);
  });

  it('budget - keeps the longest prefix that fits', () => {
    const items = ['aaaa', 'bbbb', 'cccc'];
    expect(fitToBytes(items, 100)).toEqual({ items, bytes: 22, truncated: false });
    expect(fitToBytes(items, 15)).toEqual({ items: ['aaaa', 'bbbb'], bytes: 15, truncated: true });
    expect(fitToBytes(items, 1)).toEqual({ items: [], bytes: 2, truncated: true });
    expect(fitToBytes(['é'], 4)).toEqual({ items: [], bytes: 2, truncated: true });
  });

  it.each([
    [{ type: 'string', filterable: true }, ['eq', 'in']],
    [{ type: 'string', filterable: true, nullable: true }, ['eq', 'in', 'is_null']],
    [{ type: 'string', filterable: true, searchable: true }, ['eq', 'in', 'prefix', 'contains']],
    [{ type: 'uuid', filterable: true }, ['eq', 'in']],
    [{ type: 'string' }, []],
    [{ type: 'int32', filterable: true, range: true }, ['eq', 'gt', 'gte', 'lt', 'lte', 'between']],
    [{ type: 'decimal', range: true }, ['gt', 'gte', 'lt', 'lte', 'between']],
    [{ type: 'date', range: true, nullable: true }, ['gt', 'gte', 'lt', 'lte', 'between']],
    [{ type: 'bool', filterable: true }, ['eq']],
    [{ type: 'text', searchable: true, filterable: true }, ['prefix', 'contains']],
    [{ type: 'json', filterable: true }, []],
    [{ type: 'bytes', filterable: true }, []],
  ] as const)('filter ops - %j admits %j', (spec, ops) => {
    const field = spec as unknown as FieldSpec;
    const traits = traitsOrOpaque(sampleModel, field);
    expect(filterOpsOf(field, traits, sampleModel.dialect, DEFAULT_LIMITS)).toEqual(ops);
  });
});
