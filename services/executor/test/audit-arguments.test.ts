import { describe, expect, it } from 'vitest';
import { redactValue } from '@tollgate/core';
import { auditArguments } from '../src/index.js';

const redact = {
  'customer.email': 'mask',
  client_ip: 'hash',
  card: 'last4',
  secret_score: 'drop',
} as const;

describe("audit arguments - what an event records of a call's arguments", () => {
  it('audit arguments - filter values on redacted fields are redacted like results are', () => {
    expect(
      auditArguments(
        {
          filters: [
            { field: 'customer.email', op: 'eq', value: 'ana@example.com' },
            { field: 'client_ip', op: 'in', value: ['10.0.0.1', '10.0.0.2'] },
            { field: 'status', op: 'eq', value: 'paid' },
            { field: 'secret_score', op: 'gt', value: 3 },
          ],
          limit: 5,
        },
        redact,
      ),
    ).toEqual({
      filters: [
        { field: 'customer.email', op: 'eq', value: '***' },
        {
          field: 'client_ip',
          op: 'in',
          value: [redactValue('10.0.0.1', 'hash'), redactValue('10.0.0.2', 'hash')],
        },
        { field: 'status', op: 'eq', value: 'paid' },
        { field: 'secret_score', op: 'gt', value: '***' },
      ],
      limit: 5,
    });
  });

  it('audit arguments - written document fields are redacted by their rules', () => {
    expect(
      auditArguments({ id: 'o-1', document: { card: '4111111111111111', status: 'paid' } }, redact),
    ).toEqual({ id: 'o-1', document: { card: '***1111', status: 'paid' } });
  });

  it('audit arguments - long strings, long arrays and deep nesting are cut', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20; i++) deep = [deep];
    const recorded = auditArguments(
      { note: 'x'.repeat(1_000), ids: Array.from({ length: 80 }, (_, i) => i), deep },
      {},
    );
    expect(recorded.note).toBe(`${'x'.repeat(256)}…(1000 chars)`);
    expect(recorded.ids).toHaveLength(51);
    expect((recorded.ids as unknown[])[50]).toBe('…(30 more)');
    expect(JSON.stringify(recorded.deep)).toBe('[[[[["[nested too deep]"]]]]]');
  });

  it('audit arguments - an argument set still too large after capping is replaced by a note', () => {
    const wide = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`k${i}`, 'y'.repeat(256)]),
    );
    const recorded = auditArguments(wide, {});
    expect(Object.keys(recorded)).toEqual(['_omitted']);
    expect(recorded._omitted).toMatch(/^arguments were \d+ bytes after capping; not recorded$/);
  });

  it('audit arguments - a __proto__ key is kept as data and pollutes nothing', () => {
    const recorded = auditArguments(JSON.parse('{"__proto__":{"polluted":true},"limit":1}'), {});
    expect(Object.keys(recorded)).toEqual(['__proto__', 'limit']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(recorded)).toBe(Object.prototype);
  });

  it('audit arguments - numbers JSON cannot carry are recorded as text', () => {
    expect(auditArguments({ limit: Number.NaN, amount: Infinity }, {})).toEqual({
      limit: 'NaN',
      amount: 'Infinity',
    });
  });
});
