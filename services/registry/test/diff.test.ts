import { describe, expect, it } from 'vitest';
import { diffDocuments } from '../src/diff.js';

describe('diff', () => {
  it('diff - a new document is every leaf added, sorted by path', () => {
    expect(diffDocuments(undefined, { spec: { b: 1, a: { c: true } }, kind: 'Resource' })).toEqual([
      { path: 'kind', op: 'added', after: 'Resource' },
      { path: 'spec.a.c', op: 'added', after: true },
      { path: 'spec.b', op: 'added', after: 1 },
    ]);
  });

  it('diff - changed, added and removed leaves at their paths; dotted keys in brackets', () => {
    const before = {
      spec: {
        schema: { fields: { amount: { range: false }, 'customer.email': { type: 'keyword' } } },
      },
    };
    const after = {
      spec: { schema: { fields: { amount: { range: true }, note: { type: 'text' } } } },
    };
    expect(diffDocuments(before, after)).toEqual([
      { path: 'spec.schema.fields.amount.range', op: 'changed', before: false, after: true },
      { path: 'spec.schema.fields.note.type', op: 'added', after: 'text' },
      { path: 'spec.schema.fields["customer.email"].type', op: 'removed', before: 'keyword' },
    ]);
  });

  it('diff - lists are leaves and equal documents have no diff', () => {
    const a = { access: { allowedRoles: ['a'] }, n: null };
    expect(diffDocuments(a, structuredClone(a))).toEqual([]);
    expect(diffDocuments(a, { access: { allowedRoles: ['a', 'b'] }, n: null })).toEqual([
      { path: 'access.allowedRoles', op: 'changed', before: ['a'], after: ['a', 'b'] },
    ]);
  });

  it('diff - an object replaced by a scalar is its leaves removed and the scalar added', () => {
    expect(diffDocuments({ x: { y: 1 } }, { x: 2 })).toEqual([
      { path: 'x', op: 'added', after: 2 },
      { path: 'x.y', op: 'removed', before: 1 },
    ]);
  });
});
