import { describe, expect, it } from 'vitest';

import { decodeCursor, encodeCursor, sealQuery } from '../src/connector/cursor.js';
import { canonicalJson } from '../src/canonical.js';

describe('cursor', () => {
  it('cursor - round-trips sort values for the same seal', () => {
    const seal = sealQuery({ q: 1 }, 'key');
    expect(decodeCursor(encodeCursor(['a', 2, true, null], seal), seal, 4)).toEqual([
      'a',
      2,
      true,
      null,
    ]);
  });

  it('cursor - the format is base64url JSON with version, position and signature', () => {
    const seal = sealQuery({ q: 1 });
    const payload = JSON.parse(
      Buffer.from(encodeCursor([5], seal), 'base64url').toString('utf8'),
    ) as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual(['v', 'after', 'sig']);
    expect(payload).toMatchObject({
      v: 1,
      after: [5],
      sig: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as unknown,
    });
  });

  it('cursor - seals ignore key order but not content or key', () => {
    expect(sealQuery({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(
      sealQuery({ b: [1, { d: 3, c: 2 }], a: 1 }),
    );
    expect(sealQuery({ a: 1 })).not.toBe(sealQuery({ a: 2 }));
    expect(sealQuery({ a: 1 }, 'k1')).not.toBe(sealQuery({ a: 1 }, 'k2'));
    expect(canonicalJson({ b: 1, a: { d: 1, c: 2 } })).toBe('{"a":{"c":2,"d":1},"b":1}');
  });

  it('cursor - another seal rejects it', () => {
    const cursor = encodeCursor([5], sealQuery({ q: 1 }));
    expect(() => decodeCursor(cursor, sealQuery({ q: 2 }), 1)).toThrow(
      expect.objectContaining({ code: 'ARGUMENTS_INVALID' }),
    );
  });
});
