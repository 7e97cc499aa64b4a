import { describe, expect, it } from 'vitest';
import { narrowToDeclared } from '@tollgate/core';
import type { PermissionSet, ResourceDescriptor } from '@tollgate/core';

const descriptor = {
  spec: { schema: { fields: { id: { type: 'keyword' }, amount: { type: 'double' } } } },
} as unknown as ResourceDescriptor;

describe('permissions - narrowing to the declared fields', () => {
  it('permissions - fields the descriptor no longer declares are dropped; nothing is added', () => {
    const offered: PermissionSet = {
      operations: ['search', 'count'],
      visibleFields: ['amount', 'id', 'internal_note'],
      filterableFields: ['id', 'user_id'],
      limitCap: 20,
    };
    expect(narrowToDeclared(offered, descriptor)).toEqual({
      operations: ['search', 'count'],
      visibleFields: ['amount', 'id'],
      filterableFields: ['id'],
      limitCap: 20,
    });
    expect(offered.visibleFields).toEqual(['amount', 'id', 'internal_note']);
  });

  it('permissions - a limit cap below 1 becomes 1, so synthesis and execution agree', () => {
    const offered: PermissionSet = {
      operations: ['search'],
      visibleFields: ['id'],
      filterableFields: [],
      limitCap: 0,
    };
    expect(narrowToDeclared(offered, descriptor).limitCap).toBe(1);
  });
});
