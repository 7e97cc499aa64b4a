import { describe, expect, it } from 'vitest';
import { canonicalHash, canonicalJson } from '../src/index.js';

describe('canonical JSON', () => {
  it('canonical - sorts keys at every depth by code unit, drops undefined members', () => {
    expect(canonicalJson({ b: [{ y: 1, x: 2 }], a: 'é', c: undefined, d: null, B: true })).toBe(
      '{"B":true,"a":"é","b":[{"x":2,"y":1}],"d":null}',
    );
  });

  it('canonical - key order never changes the hash; a value change always does', () => {
    expect(canonicalHash({ a: 1, b: { c: [1, 2] } })).toBe(
      canonicalHash({ b: { c: [1, 2] }, a: 1 }),
    );
    expect(canonicalHash({ a: 1 })).not.toBe(canonicalHash({ a: 2 }));
    expect(canonicalHash({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('canonical - honours toJSON and writes undefined array items as null, like JSON.stringify', () => {
    expect(canonicalJson({ when: new Date(0), xs: [1, undefined] })).toBe(
      '{"when":"1970-01-01T00:00:00.000Z","xs":[1,null]}',
    );
  });

  it('canonical - values JSON cannot carry throw instead of changing silently', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow('canonicalJson: NaN is not JSON');
    expect(() => canonicalJson({ n: 1n })).toThrow('canonicalJson: a bigint is not JSON');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow('canonicalJson: cyclic structure');
  });

  it('canonical - a memoised shared object is written as given', () => {
    const shared = { z: 1, a: 2 };
    const memo = new Map<object, string>([[shared, canonicalJson(shared)]]);
    expect(canonicalJson({ x: shared, y: shared }, memo)).toBe(
      '{"x":{"a":2,"z":1},"y":{"a":2,"z":1}}',
    );
  });
});

describe('canonical JSON - stability', () => {
  it('canonical - a golden vector pins the encoding stored hashes (audit chain, descriptors) depend on', () => {
    const value = {
      z: [3, { b: 'é', a: null }],
      a: { when: new Date(Date.UTC(2026, 0, 2)) },
      n: -0.5,
      s: '"\n',
    };
    expect(canonicalJson(value)).toBe(
      '{"a":{"when":"2026-01-02T00:00:00.000Z"},"n":-0.5,"s":"\\"\\n","z":[3,{"a":null,"b":"é"}]}',
    );
    expect(canonicalHash(value)).toBe(
      '028124eb9af803de9284e6869e4fee5401d16c6a18ac6f07adee60ba9bfe064b',
    );
  });
});
