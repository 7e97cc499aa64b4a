import { describe, expect, it } from 'vitest';

import { fitToBytes } from '../src/connector/budget.js';
import { filterOpsFor } from '../src/connector/field-rules.js';
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
    [{ type: 'keyword', filterable: true }, ['eq', 'in', 'exists']],
    [{ type: 'ip', filterable: true }, ['eq', 'in', 'exists']],
    [{ type: 'keyword' }, []],
    [
      { type: 'long', filterable: true, range: true },
      ['eq', 'exists', 'gt', 'gte', 'lt', 'lte', 'between'],
    ],
    [{ type: 'date', range: true }, ['gt', 'gte', 'lt', 'lte', 'between']],
    [{ type: 'boolean', filterable: true }, ['eq']],
    [{ type: 'text', searchable: true, filterable: true }, ['match']],
    [{ type: 'geo_point', filterable: true }, []],
    [{ type: 'nested', filterable: true }, []],
  ] as const)('filter ops - %j admits %j', (spec, ops) => {
    expect(filterOpsFor(spec)).toEqual(ops);
  });
});
