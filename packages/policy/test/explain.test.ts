import { describe, expect, test } from 'vitest';
import { LocalDecider } from '../src/index.js';
import { TENANT, compiled, utc } from './fixtures.js';

describe('explain - operator trace', () => {
  const decider = LocalDecider.fromBundle(compiled());
  const as = (agent: string) => ({ tenant: TENANT, agent, environment: 'prod', roles: ['admin'] });

  test('explain - shows the context, entities and every policy considered', () => {
    const trace = decider.explain(as('support_bot'), 'search', 'es_orders', {
      sourceIp: '11.1.2.3',
      now: utc('02:00'),
    });
    expect(trace.decision).toMatchObject({
      decision: 'deny',
      reason: 'denied by an IP restriction',
    });
    expect(trace.bundle).toEqual({ tenant: TENANT, version: 7, hash: compiled().hash });
    expect(trace.request).toMatchObject({
      action: 'search',
      resource: 'es_orders',
      roles: ['support'],
      resourceVersion: 1,
    });
    expect(trace.context).toEqual({
      tenant: TENANT,
      environment: 'prod',
      clock: { Asia_Shanghai: 600, Europe_Berlin: 240 },
      sourceIp: { __extn: { fn: 'ip', arg: '11.1.2.3' } },
    });
    expect(trace.entities?.map((e) => e.uid)).toEqual([
      { type: 'Agent', id: 'support_bot' },
      { type: 'Resource', id: 'es_orders' },
    ]);
    const ids = trace.policies.map((p) => p.id);
    expect(ids).toContain('policy/support-read-orders/grant/0');
    expect(ids).toContain('tollgate/tenant-isolation');
    expect(ids).not.toContain('tollgate/field-access');
    expect(ids).not.toContain('policy/support-read-orders/grant/1');
    expect(trace.policies.every((p) => p.matched === false)).toBe(true);
    expect(trace.errors).toEqual([]);
  });

  test('explain - matching policies and the Cedar of the deciding ones', () => {
    const trace = decider.explain(as('intern_bot'), 'search', 'es_orders', {
      sourceIp: '10.1.2.3',
      now: utc('02:00'),
    });
    const matched = trace.policies.filter((p) => p.matched === true).map((p) => p.id);
    expect(matched.sort()).toEqual(['policy/guards/grant/0', 'policy/support-read-orders/grant/0']);
    expect(trace.determining).toHaveLength(1);
    expect(trace.determining[0]?.id).toBe('policy/guards/grant/0');
    expect(trace.determining[0]?.cedar).toContain('when { principal in [Role::"intern"] }');
  });

  test('explain - a request refused before Cedar still explains why', () => {
    const trace = decider.explain(as('ghost'), 'search', 'es_orders');
    expect(trace.decision.reason).toBe('unknown agent: "ghost" is not declared in this tenant');
    expect(trace.policies).toEqual([]);
    const empty = new LocalDecider().explain(as('ghost'), 'search', 'es_orders');
    expect(empty.decision.errorCode).toBe('POLICY_UNAVAILABLE');
    expect(empty.bundle).toBeUndefined();
  });
});
