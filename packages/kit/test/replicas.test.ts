import { describe, expect, it } from 'vitest';
import { storageReplicas } from '../src/index.js';

describe('replicas - TOLLGATE_NATS_REPLICAS', () => {
  it('replicas - unset is a single copy; 1, 3 and 5 are taken as given', () => {
    expect(storageReplicas({})).toBe(1);
    expect(storageReplicas({ TOLLGATE_NATS_REPLICAS: '' })).toBe(1);
    for (const n of ['1', '3', '5'])
      expect(storageReplicas({ TOLLGATE_NATS_REPLICAS: n })).toBe(Number(n));
  });

  it('replicas - an even, zero or non-numeric count is refused with the variable named', () => {
    for (const bad of ['2', '0', '-3', 'three', '3.0', ' 3'])
      expect(() => storageReplicas({ TOLLGATE_NATS_REPLICAS: bad })).toThrow(
        `TOLLGATE_NATS_REPLICAS must be 1, 3 or 5 (got "${bad}")`,
      );
  });
});
