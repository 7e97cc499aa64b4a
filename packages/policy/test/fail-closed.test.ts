import { describe, expect, test } from 'vitest';
import type { Operation } from '@tollgate/core';
import { LocalDecider, bundleHash, cedarWasmEngine } from '../src/index.js';
import type { CedarEngine, PolicyBundle, PolicyDecision } from '../src/index.js';
import { TENANT, compiled, ordersInputs, policy, utc } from './fixtures.js';

const CALLS: [string, Operation, string][] = [
  ['ops_bot', 'search', 'es_orders'],
  ['ops_bot', 'write', 'es_orders'],
  ['support_bot', 'search', 'es_customers'],
  ['analyst', 'count', 'es_invoices'],
];

function everyCall(decider: LocalDecider): PolicyDecision[] {
  return CALLS.map(([agent, action, resource]) =>
    decider.decide({ tenant: TENANT, agent, environment: 'prod' }, action, resource, {
      sourceIp: '10.1.2.3',
      now: utc('02:00'),
    }),
  );
}

function expectUnavailable(decider: LocalDecider, reason: string | RegExp): void {
  for (const decision of everyCall(decider)) {
    expect(decision.decision).toBe('deny');
    expect(decision.errorCode).toBe('POLICY_UNAVAILABLE');
    expect(decision.reason).toMatch(reason);
  }
  const permissions = decider.permissionSet(
    { tenant: TENANT, agent: 'ops_bot', environment: 'prod' },
    'es_orders',
  );
  expect(permissions.operations).toEqual([]);
  expect(permissions.unavailable).toBeTruthy();
}

/** A bundle with a changed member and a hash recomputed over the change. */
function rehashed(change: (bundle: Omit<PolicyBundle, 'hash'>) => void): PolicyBundle {
  const { hash: _hash, ...body } = structuredClone(compiled());
  change(body);
  return { ...body, hash: bundleHash(body) };
}

describe('fail closed - no or corrupt bundle', () => {
  test('fail closed - no bundle loaded denies every call', () => {
    const decider = new LocalDecider();
    expect(decider.status()).toEqual({ state: 'empty' });
    expectUnavailable(decider, 'policy unavailable: no policy bundle loaded');
  });

  test('fail closed - bundle bytes that are not JSON', () => {
    const decider = LocalDecider.fromBundle(
      new TextEncoder().encode('{"format": "tollgate.policy-bundle/v1",'),
    );
    expect(decider.status()).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^bundle is not valid JSON/),
    });
    expectUnavailable(decider, 'policy unavailable: the policy bundle could not be loaded');
  });

  test('fail closed - bytes that are not UTF-8', () => {
    const decider = LocalDecider.fromBundle(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    expect(decider.status()).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^bundle is not valid JSON/),
    });
    expectUnavailable(decider, /could not be loaded/);
  });

  test('fail closed - content changed without a new hash', () => {
    const bundle = compiled();
    const tampered = JSON.stringify(bundle).replace('"readonly":true', '"readonly":false');
    expect(tampered).not.toBe(JSON.stringify(bundle));
    const decider = LocalDecider.fromBundle(tampered);
    expect(decider.status()).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^bundle hash mismatch: declared sha256:/),
    });
    expectUnavailable(decider, /could not be loaded/);
  });

  test('fail closed - Cedar that does not parse', () => {
    const bundle = rehashed((b) => {
      const grant = b.policies.find((p) => p.kind === 'grant');
      if (grant) grant.cedar = grant.cedar.replace('when {', 'when {{');
    });
    const decider = LocalDecider.fromBundle(bundle);
    expect(decider.status()).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^bundle policies do not parse/),
    });
    expectUnavailable(decider, /could not be loaded/);
  });

  test('fail closed - a schema that does not parse', () => {
    const decider = LocalDecider.fromBundle(rehashed((b) => void (b.schema = 'entity Agent {')));
    expect(decider.status()).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^bundle schema does not parse/),
    });
    expectUnavailable(decider, /could not be loaded/);
  });

  test('fail closed - entities that do not fit the schema', () => {
    const bundle = rehashed((b) => {
      const agent = b.entities.find((e) => (e.uid as { type: string }).type === 'Agent');
      if (agent) agent.attrs = { tenant: 42 };
    });
    const decider = LocalDecider.fromBundle(bundle);
    expect(decider.status()).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^bundle entities do not fit the schema/),
    });
  });

  test('fail closed - unknown members are rejected', () => {
    const decider = LocalDecider.fromBundle({ ...compiled(), signedBy: 'someone' } as PolicyBundle);
    expect(decider.status()).toEqual({
      state: 'failed',
      reason: 'bundle.signedBy is not a known member',
    });
  });

  test('fail closed - a corrupt bundle replaces a good one and denies everything', () => {
    const decider = LocalDecider.fromBundle(compiled());
    expect(everyCall(decider)[0]?.decision).toBe('allow');
    const result = decider.load('not json');
    expect(result).toMatchObject({ ok: false, kept: false });
    expectUnavailable(decider, /could not be loaded/);
    expect(decider.load(compiled()).ok).toBe(true);
    expect(everyCall(decider)[0]?.decision).toBe('allow');
  });

  test('fail closed - an older bundle is refused and the current one kept', () => {
    const decider = LocalDecider.fromBundle(compiled());
    const older = compiled({ ...ordersInputs(), version: 6 });
    expect(decider.load(older)).toEqual({
      ok: false,
      kept: true,
      reason: 'bundle version 6 is older than the loaded 7',
    });
    expect(decider.status()).toMatchObject({ state: 'ready', version: 7 });
  });

  test("fail closed - another tenant's bundle is refused", () => {
    const decider = LocalDecider.fromBundle(compiled());
    const other = compiled({
      tenant: 'team-b',
      version: 9,
      agents: [],
      policies: [],
      resources: [],
    });
    expect(decider.load(other)).toMatchObject({ ok: false, kept: true });
    expect(decider.status()).toMatchObject({ state: 'ready', tenant: TENANT });
  });
});

describe('fail closed - evaluation errors', () => {
  test('fail closed - an engine that throws denies every call', () => {
    const engine: CedarEngine = {
      ...cedarWasmEngine,
      statefulIsAuthorized: () => {
        throw new Error('wasm trap: unreachable');
      },
      isAuthorizedPartial: () => {
        throw new Error('wasm trap: unreachable');
      },
    };
    const decider = LocalDecider.fromBundle(compiled(), { engine });
    expect(decider.status().state).toBe('ready');
    expectUnavailable(decider, 'policy unavailable: policy engine failed');
    const trace = decider.explain(
      { tenant: TENANT, agent: 'ops_bot', environment: 'prod' },
      'search',
      'es_orders',
    );
    expect(trace.errors[0]).toBe('wasm trap: unreachable');
  });

  test('fail closed - an engine that reports failure denies every call', () => {
    const engine: CedarEngine = {
      ...cedarWasmEngine,
      statefulIsAuthorized: () => ({
        type: 'failure',
        errors: [
          { message: 'context is not valid', help: null, code: null, url: null, severity: null },
        ],
        warnings: [],
      }),
    };
    expectUnavailable(
      LocalDecider.fromBundle(compiled(), { engine }),
      'policy unavailable: policy evaluation failed',
    );
  });

  test('fail closed - an engine that fails while loading leaves the decider failed', () => {
    const engine: CedarEngine = {
      ...cedarWasmEngine,
      checkParsePolicySet: () => {
        throw new Error('out of memory');
      },
    };
    const decider = LocalDecider.fromBundle(compiled(), { engine });
    expect(decider.status()).toEqual({
      state: 'failed',
      reason: 'policy engine failed while loading: out of memory',
    });
    expectUnavailable(decider, /could not be loaded/);
  });

  test('fail closed - an engine that fails preparing a policy set on first use denies that call', () => {
    let failing = true;
    const engine: CedarEngine = {
      ...cedarWasmEngine,
      preparsePolicySet: (id, policies) => {
        if (failing) throw new Error('out of memory');
        return cedarWasmEngine.preparsePolicySet(id, policies);
      },
    };
    const decider = LocalDecider.fromBundle(compiled(), { engine });
    expect(decider.status()).toMatchObject({ state: 'ready' });
    expectUnavailable(decider, /policy engine failed/);
    failing = false;
    const principal = { tenant: TENANT, agent: 'ops_bot', environment: 'prod' };
    expect(decider.decide(principal, 'search', 'es_orders', { limit: 10 }).decision).toBe('allow');
  });

  test('fail closed - a policy that errors at evaluation denies, even though Cedar skips it', () => {
    const inputs = ordersInputs();
    // Valid against the schema, but overflows at run time whenever a limit is given.
    inputs.policies.push(
      policy(
        'overflow',
        [],
        'forbid (principal, action, resource is Resource) when { context has limit && context.limit * 9223372036854775807 > 0 };',
      ),
    );
    const decider = LocalDecider.fromBundle(compiled(inputs));
    const principal = { tenant: TENANT, agent: 'ops_bot', environment: 'prod' };
    const result = decider.decide(principal, 'search', 'es_orders', { limit: 10 });
    expect(result).toMatchObject({
      decision: 'deny',
      errorCode: 'POLICY_UNAVAILABLE',
      policyIds: ['policy/overflow/cedar/0'],
    });
    expect(decider.decide(principal, 'search', 'es_orders').decision).toBe('allow');
    const trace = decider.explain(principal, 'search', 'es_orders', { limit: 10 });
    expect(trace.policies.find((p) => p.id === 'policy/overflow/cedar/0')).toMatchObject({
      matched: 'error',
    });
    expect(trace.errors.join('\n')).toMatch(/overflow/);
  });
});
