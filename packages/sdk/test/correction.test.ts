import { describe, expect, it } from 'vitest';
import { readCorrection } from '../src/model/resource-extraction.js';

const current = {
  metadata: { name: 'es_orders' },
  spec: { type: 'elasticsearch', schema: { fields: { amount: { type: 'double' }, id: {} } } },
};

describe('scripted correction', () => {
  it('scripted correction - a field named and what it is becomes its description, as a merge patch', () => {
    expect(readCorrection('amount is the total in euros', current)).toEqual({
      spec: { schema: { fields: { amount: { description: 'the total in euros' } } } },
    });
    expect(readCorrection('amount 是欧元总额。', current)).toEqual({
      spec: { schema: { fields: { amount: { description: '欧元总额' } } } },
    });
  });

  it('scripted correction - fields the proposal does not hold, and other sentences, change nothing', () => {
    expect(readCorrection('price is the total in euros', current)).toEqual({});
    expect(readCorrection('what?', current)).toEqual({});
  });
});
