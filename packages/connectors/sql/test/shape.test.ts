import { describe, expect, it } from 'vitest';

import { shapeSqlResult } from '../src/index.js';
import type { SqlReadRequest } from '../src/index.js';

const request: SqlReadRequest = {
  mode: 'read',
  result: 'rows',
  statement: { text: 'SELECT …', values: [] },
  columns: [
    { name: 'id', type: { class: 'integer', native: 'bigint', bits: 64 } },
    { name: '__proto__', type: { class: 'string', native: 'text' } },
    { name: 'email', type: { class: 'string', native: 'text' } },
    { name: 'secret', type: { class: 'string', native: 'text' } },
  ],
  keys: ['id'],
};

describe('sql shape', () => {
  it('shape - visible columns only, redaction applied, a column named __proto__ stays an own field', () => {
    const shaped = shapeSqlResult(
      request,
      {
        // JSON.parse makes `__proto__` an own key, as a driver's row would hold it.
        rows: [
          '{"id":"9007199254740993","__proto__":"p1","email":"a@example.com","secret":"s"}',
          '{"id":"2","__proto__":"p2","email":"b@example.com","secret":"s"}',
        ].map((text) => JSON.parse(text) as Record<string, unknown>),
      },
      {
        resource: 'orders',
        visibleFields: ['id', '__proto__', 'email'],
        redact: { email: 'drop' },
        page: { limit: 5, seal: 'seal', continued: false },
      },
    );
    const rows = shaped.data as Array<Record<string, unknown>>;
    expect(rows.map((row) => Object.getPrototypeOf(row))).toEqual([
      Object.prototype,
      Object.prototype,
    ]);
    expect(rows.map((row) => Object.keys(row))).toEqual([
      ['id', '__proto__'],
      ['id', '__proto__'],
    ]);
    expect(rows.map((row) => Object.getOwnPropertyDescriptor(row, '__proto__')?.value)).toEqual([
      'p1',
      'p2',
    ]);
    expect(rows[0]?.['id']).toBe('9007199254740993');
  });
});
