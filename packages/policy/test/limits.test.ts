import { describe, expect, test } from 'vitest';
import {
  LocalDecider,
  approvalBindingHash,
  nextWindowState,
  takeWindowSlots,
} from '../src/index.js';
import { TENANT, compiled } from './fixtures.js';

describe('rate limits - lookup', () => {
  const decider = LocalDecider.fromBundle(compiled());
  const as = (agent: string) => ({ tenant: TENANT, agent, environment: 'prod' });
  const expected = [
    {
      policyId: 'policy/support-read-orders/grant/0',
      requests: 60,
      perSeconds: 60,
      counterKey:
        'ratelimit.team-a.support_bot.es_orders_search.policy/support-read-orders/grant/0',
    },
  ];

  test('rate limits - a role grant limits each agent of the role per tool', () => {
    expect(decider.rateLimitsFor(as('support_bot'), 'es_orders_search')).toEqual(expected);
    expect(decider.rateLimitsFor(as('support_bot'), 'es_orders.search')).toEqual(expected);
    expect(decider.rateLimitsFor(as('intern_bot'), 'es_orders_get')[0]?.counterKey).toBe(
      'ratelimit.team-a.intern_bot.es_orders_get.policy/support-read-orders/grant/0',
    );
  });

  test('rate limits - other tools, agents and tenants have none', () => {
    expect(decider.rateLimitsFor(as('support_bot'), 'es_orders_count')).toEqual([]);
    expect(decider.rateLimitsFor(as('ops_bot'), 'es_orders_search')).toEqual([]);
    expect(decider.rateLimitsFor(as('ghost'), 'es_orders_search')).toEqual([]);
    expect(
      decider.rateLimitsFor({ ...as('support_bot'), tenant: 'team-b' }, 'es_orders_search'),
    ).toEqual([]);
    expect(decider.rateLimitsFor(as('support_bot'), 'not a tool')).toEqual([]);
  });

  test('rate limits - tools are read against the bundle: only its resources operations count', () => {
    // The tool names of es_orders's own operations (and `<resource>.<operation>`) are limited;
    // a name no resource of the bundle offers is not a tool, whatever its shape.
    expect(decider.rateLimitsFor(as('support_bot'), 'es_orders_search')).toEqual(expected);
    expect(decider.rateLimitsFor(as('support_bot'), 'es_orders.search')).toEqual(expected);
    expect(decider.rateLimitsFor(as('support_bot'), 'es_orders_delete')).toEqual([]);
    expect(decider.rateLimitsFor(as('support_bot'), 'es_orders.delete')).toEqual([]);
    expect(decider.rateLimitsFor(as('support_bot'), 'es_orders.*')).toEqual([]);
    expect(decider.rateLimitsFor(as('support_bot'), 'es_nothing_search')).toEqual([]);
  });
});

describe('rate limits - fixed window', () => {
  const limit = { requests: 2, perSeconds: 10 };

  test('rate limits - admits up to the limit, then refuses until the window turns', () => {
    const first = nextWindowState(null, 100_500, limit);
    expect(first).toEqual({
      allowed: true,
      retryAfterMs: 0,
      state: { windowStart: 100_000, count: 1 },
    });
    const second = nextWindowState(first.state, 101_000, limit);
    expect(second).toEqual({
      allowed: true,
      retryAfterMs: 0,
      state: { windowStart: 100_000, count: 2 },
    });
    const third = nextWindowState(second.state, 104_000, limit);
    expect(third).toEqual({ allowed: false, retryAfterMs: 6_000, state: second.state });
    const next = nextWindowState(third.state, 110_000, limit);
    expect(next).toEqual({
      allowed: true,
      retryAfterMs: 0,
      state: { windowStart: 110_000, count: 1 },
    });
  });

  test('rate limits - windows are aligned so every instance agrees', () => {
    expect(nextWindowState(null, 119_999, limit).state.windowStart).toBe(110_000);
    expect(nextWindowState({ windowStart: 50_000, count: 2 }, 119_999, limit).allowed).toBe(true);
  });
});

describe('rate limits - slots taken at once', () => {
  const limit = { requests: 10, perSeconds: 10 };

  test('rate limits - a lease takes what is asked while the window has it, then what is left', () => {
    const first = takeWindowSlots(null, 100_500, limit, 4);
    expect(first).toMatchObject({ allowed: true, granted: 4, state: { count: 4 } });
    const second = takeWindowSlots(first.state, 101_000, limit, 4);
    expect(second).toMatchObject({ allowed: true, granted: 4, state: { count: 8 } });
    const third = takeWindowSlots(second.state, 101_500, limit, 4);
    expect(third).toMatchObject({ allowed: true, granted: 2, state: { count: 10 } });
    const refused = takeWindowSlots(third.state, 102_000, limit, 4);
    expect(refused).toEqual({
      allowed: false,
      granted: 0,
      retryAfterMs: 8_000,
      state: third.state,
    });
  });

  test('rate limits - a lease never takes less than one slot or more than the limit', () => {
    expect(takeWindowSlots(null, 0, limit, 0)).toMatchObject({ granted: 1 });
    expect(takeWindowSlots(null, 0, limit, 500)).toMatchObject({ granted: 10 });
    expect(takeWindowSlots({ windowStart: 0, count: 3 }, 10_000, limit, 50).granted).toBe(10);
  });
});

describe('approvals - binding hash', () => {
  const binding = {
    principal: { tenant: TENANT, agent: 'ops_bot', user: 'alice' },
    resourceName: 'es_orders',
    resourceVersion: 3,
    tool: 'es_orders_write',
    args: { id: 'o-1', document: { status: 'refunded', amount: 12.5 } },
  };

  test('approvals - key order does not matter', () => {
    const reordered = {
      ...binding,
      args: { document: { amount: 12.5, status: 'refunded' }, id: 'o-1' },
    };
    expect(approvalBindingHash(reordered)).toBe(approvalBindingHash(binding));
    expect(approvalBindingHash(binding)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  test('approvals - different arguments, version, tool or principal never match', () => {
    const base = approvalBindingHash(binding);
    expect(approvalBindingHash({ ...binding, args: { ...binding.args, id: 'o-2' } })).not.toBe(
      base,
    );
    expect(
      approvalBindingHash({
        ...binding,
        args: { id: 'o-1', document: { status: 'refunded', amount: 1250 } },
      }),
    ).not.toBe(base);
    expect(approvalBindingHash({ ...binding, resourceVersion: 4 })).not.toBe(base);
    expect(approvalBindingHash({ ...binding, tool: 'es_orders_search' })).not.toBe(base);
    expect(
      approvalBindingHash({ ...binding, principal: { ...binding.principal, user: 'bob' } }),
    ).not.toBe(base);
    expect(
      approvalBindingHash({ ...binding, principal: { ...binding.principal, tenant: 'team-b' } }),
    ).not.toBe(base);
  });

  test('approvals - claimed roles do not change the binding', () => {
    const withRoles = { ...binding, principal: { ...binding.principal, roles: ['admin'] } };
    expect(approvalBindingHash(withRoles)).toBe(approvalBindingHash(binding));
  });

  test('approvals - values JSON cannot carry are refused', () => {
    expect(() => approvalBindingHash({ ...binding, args: { amount: Number.NaN } })).toThrow(
      'canonicalJson: NaN is not JSON',
    );
  });
});
