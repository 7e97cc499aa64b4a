import { describe, expect, it } from 'vitest';
import { decodePageToken, encodePageToken, pagePositions } from '../src/index.js';

const { name, sequence } = pagePositions;

describe('page tokens', () => {
  const query = { scope: { tenant: 'a', environment: 'prod' }, labels: { domain: 'orders' } };

  it('page token - round-trips a position for the same query', () => {
    expect(decodePageToken(encodePageToken('es_orders', query), structuredClone(query), name)).toBe(
      'es_orders',
    );
    expect(decodePageToken(encodePageToken(7, query), query, sequence)).toBe(7);
    expect(decodePageToken('', query, name)).toBeUndefined();
  });

  it('page token - refuses a token of another query, a forged one and garbage', () => {
    const token = encodePageToken('es_orders', query);
    const other = { ...query, labels: { domain: 'billing' } };
    const expected = /^page_token: not a token from the previous page of this same query/;
    expect(() => decodePageToken(token, other, name)).toThrow(expected);
    expect(() => decodePageToken(token, query, sequence)).toThrow(expected);
    const forged = Buffer.from(JSON.stringify({ p: 'zzz', q: 'x' })).toString('base64url');
    expect(() => decodePageToken(forged, query, name)).toThrow(expected);
    expect(() => decodePageToken('not a token!', query, name)).toThrow(expected);
    expect(() => decodePageToken('a'.repeat(2000), query, name)).toThrow(expected);
  });
});
