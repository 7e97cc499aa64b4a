import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '../src/merge-patch.js';

describe('merge patch', () => {
  it('merge patch - merges objects, replaces lists and scalars, removes keys set to null (RFC 7386)', () => {
    const target = { a: 'b', c: { d: 'e', f: 'g' }, list: [1, 2] };
    const patch = { a: 'z', c: { f: null, h: 1 }, list: [3] };
    expect(applyMergePatch(target, patch)).toEqual({ a: 'z', c: { d: 'e', h: 1 }, list: [3] });
    expect(target).toEqual({ a: 'b', c: { d: 'e', f: 'g' }, list: [1, 2] });
  });

  it('merge patch - a non-object patch replaces the document; an object patch on a scalar starts empty', () => {
    expect(applyMergePatch({ a: 1 }, ['x'])).toEqual(['x']);
    expect(applyMergePatch('text', { a: { b: null, c: 1 } })).toEqual({ a: { c: 1 } });
  });
});
