import { describe, expect, test } from 'vitest';
import { LocalDecider, checkCedarPolicy, compileBundle } from '../src/index.js';
import { TENANT, compiled, ordersInputs, policy, utc } from './fixtures.js';

describe('raw Cedar - checking', () => {
  test('raw Cedar - a valid policy is accepted', () => {
    const text = [
      '// production data only from production callers',
      'forbid (principal, action, resource) when { context.environment != resource.environment };',
      '',
      'permit (principal in Role::"support", action == Action::"count", resource == Resource::"es_orders");',
    ].join('\n');
    expect(checkCedarPolicy(text)).toEqual({ ok: true, policies: 2 });
  });

  test('raw Cedar - a syntax error carries line and column', () => {
    const text = 'permit (principal, action, resource);\nforbid (principal, action resource);\n';
    const result = checkCedarPolicy(text);
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          path: 'spec.cedar',
          line: 2,
          column: 27,
          message: expect.stringMatching(
            /^line 2, column 27: failed to parse policies from string: unexpected token `resource`/,
          ),
        },
      ],
    });
  });

  test('raw Cedar - columns count characters, not bytes', () => {
    const text = '// Zugriff für Prüfer\npermit (principal, action, resource) when { 1 +  };';
    const result = checkCedarPolicy(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]).toMatchObject({ line: 2, column: 50 });
  });

  test('raw Cedar - an unknown attribute fails schema validation with a clear message', () => {
    const text =
      'permit (principal, action == Action::"search", resource)\n  when { resource.owner == "team-a" };';
    const result = checkCedarPolicy(text);
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          path: 'spec.cedar',
          line: 2,
          column: 10,
          message:
            'line 2, column 10: attribute `owner` on entity type `Resource` not found; did you mean `tenant`?',
        },
      ],
    });
  });

  test('raw Cedar - an unguarded optional attribute is reported once with a hint', () => {
    const result = checkCedarPolicy(
      'permit (principal, action, resource is Resource) when { context.sourceIp.isIpv4() };',
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0]?.message).toMatch(
        /optional attribute `sourceIp`.*context has sourceIp/,
      );
    }
  });

  test('raw Cedar - an invalid IP literal is rejected', () => {
    const result = checkCedarPolicy(
      'permit (principal, action, resource is Resource) when { context has sourceIp && context.sourceIp.isInRange(ip("10.0.0.0/33")) };',
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]?.message).toMatch(/failed to parse as IP address/);
  });

  test('raw Cedar - a clock key must name a time zone', () => {
    expect(
      checkCedarPolicy(
        'forbid (principal, action, resource) when { context.clock.Europe_Paris < 60 };',
      ),
    ).toEqual({ ok: true, policies: 1 });
    expect(
      checkCedarPolicy(
        'forbid (principal, action, resource) when { context.clock.Mars_Base < 60 };',
      ),
    ).toMatchObject({
      ok: false,
      problems: [
        {
          message:
            'context.clock.Mars_Base: no time zone has the key "Mars_Base" (Europe/Berlin → Europe_Berlin)',
        },
      ],
    });
  });

  test('raw Cedar - require_approval only on permits', () => {
    const result = checkCedarPolicy(
      '@tollgate_effect("require_approval")\nforbid (principal, action, resource);',
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]?.message).toMatch(/does not fit a forbid/);
  });

  test('raw Cedar - problems in a Policy name it in the bundle problems', () => {
    const inputs = ordersInputs();
    inputs.policies.push(
      policy(
        'broken',
        [],
        'permit (principal, action, resource)\nwhen { resource.colour == "red" };',
      ),
    );
    const result = compileBundle(inputs);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems[0]).toEqual({
        path: 'Policy/broken/spec.cedar',
        line: 2,
        column: 8,
        message:
          'line 2, column 8: attribute `colour` on entity type `Resource` not found; did you mean `tenant`?',
      });
    }
  });
});

describe('raw Cedar - decisions', () => {
  const inputs = ordersInputs();
  inputs.policies.push(
    policy(
      'custom',
      [],
      [
        '@id("no-bulk-customer-reads")',
        'forbid (principal, action == Action::"search", resource == Resource::"es_customers")',
        'when { context has limit && context.limit > 10 } unless { principal in Role::"order_ops" };',
        '',
        '@tollgate_effect("require_approval")',
        'permit (principal == Agent::"auditor", action == Action::"write", resource == Resource::"es_invoices");',
        '',
        'forbid (principal, action, resource == Resource::"es_invoices")',
        'when { context.clock.Europe_Paris >= 0 && context.clock.Europe_Paris < 60 };',
        '',
        'forbid (principal == Agent::"ops_bot", action in Action::"read", resource == Resource::"es_audit");',
      ].join('\n'),
    ),
  );
  const decider = LocalDecider.fromBundle(compiled(inputs));
  const as = (agent: string) => ({ tenant: TENANT, agent, environment: 'prod' });

  test('raw Cedar - a forbid applies and is reported as a Cedar rule', () => {
    expect(
      decider.decide(as('support_bot'), 'search', 'es_customers', { limit: 20 }),
    ).toMatchObject({
      decision: 'deny',
      policyIds: ['policy/custom/cedar/0'],
      reason: 'denied by a Cedar policy rule',
    });
    expect(
      decider.decide(as('support_bot'), 'search', 'es_customers', { limit: 10 }).decision,
    ).toBe('allow');
    expect(
      decider.decide(as('ops_bot'), 'search', 'es_customers', { limit: 20, sourceIp: '10.0.0.1' })
        .decision,
    ).toBe('allow');
  });

  test('raw Cedar - an annotated permit requires approval', () => {
    expect(
      decider.decide(as('auditor'), 'write', 'es_invoices', { now: utc('12:00') }),
    ).toMatchObject({
      decision: 'require_approval',
      policyIds: ['policy/custom/cedar/1'],
    });
  });

  test('raw Cedar - the read action group covers every read operation, and only those', () => {
    const inAudit = (action: 'search' | 'aggregate' | 'write') =>
      decider.decide(as('ops_bot'), action, 'es_audit', {});
    expect(inAudit('search').policyIds).toContain('policy/custom/cedar/3');
    expect(inAudit('aggregate').policyIds).toContain('policy/custom/cedar/3');
    expect(inAudit('write').policyIds).not.toContain('policy/custom/cedar/3');
    const trace = decider.explain(as('ops_bot'), 'search', 'es_audit');
    expect(trace.errors).toEqual([]);
    expect(trace.policies.find((p) => p.id === 'policy/custom/cedar/3')).toMatchObject({
      matched: true,
      determining: true,
    });
  });

  test('raw Cedar - a zone only raw Cedar uses still gets a clock', () => {
    // 22:30Z in June is 00:30 in Paris.
    expect(
      decider.decide(as('auditor'), 'write', 'es_invoices', { now: utc('22:30') }),
    ).toMatchObject({
      decision: 'deny',
      policyIds: ['policy/custom/cedar/2'],
    });
  });
});
