import { beforeAll, describe, expect, test } from 'vitest';
import type { Operation } from '@tollgate/core';
import { LocalDecider } from '../src/index.js';
import type { CallContext, DecisionOutcome, Principal } from '../src/index.js';
import { TENANT, compiled, utc } from './fixtures.js';

interface Case {
  name: string;
  agent: string;
  action: string;
  resource: string;
  context?: CallContext & Record<string, unknown>;
  principal?: Partial<Principal> & Record<string, unknown>;
  decision: DecisionOutcome;
  policyIds?: string[];
  reason?: string | RegExp;
  errorCode?: 'POLICY_DENIED' | 'POLICY_UNAVAILABLE';
}

// 02:00Z = 10:00 Shanghai (inside 08:00-20:00) and 04:00 Berlin (inside 22:00-06:00).
const OFFICE = { sourceIp: '10.1.2.3', now: utc('02:00') };
const SUPPORT_GRANT = 'policy/support-read-orders/grant/0';

const cases: Case[] = [
  // roles, IP ranges (IPv4 and IPv6), time window in another zone
  {
    name: 'role grant allows inside CIDR and window',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: OFFICE,
    decision: 'allow',
    policyIds: [SUPPORT_GRANT],
    reason: 'es_orders.search is allowed by a grant',
  },
  {
    name: 'grant covers each listed action',
    agent: 'support_bot',
    action: 'get',
    resource: 'es_orders',
    context: OFFICE,
    decision: 'allow',
    policyIds: [SUPPORT_GRANT],
  },
  {
    name: 'IPv4 outside CIDR denies',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { ...OFFICE, sourceIp: '11.1.2.3' },
    decision: 'deny',
    policyIds: [],
    reason: 'denied by an IP restriction',
  },
  {
    name: 'IPv6 inside CIDR allows',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { ...OFFICE, sourceIp: '2001:db8::7' },
    decision: 'allow',
  },
  {
    name: 'IPv6 outside CIDR denies',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { ...OFFICE, sourceIp: '2001:db9::7' },
    decision: 'deny',
    reason: 'denied by an IP restriction',
  },
  {
    name: 'IPv4-mapped IPv6 counts as IPv4',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { ...OFFICE, sourceIp: '::ffff:10.9.9.9' },
    decision: 'allow',
  },
  {
    name: 'unknown caller IP does not satisfy an IP grant',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { now: utc('02:00') },
    decision: 'deny',
    reason: "denied by an IP restriction (the caller's IP is unknown)",
  },
  {
    name: 'after the window in Asia/Shanghai denies',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { ...OFFICE, now: utc('13:00') },
    decision: 'deny',
    reason: 'outside the time window a grant allows',
  },
  {
    name: 'window start is inclusive (08:00 Shanghai)',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { ...OFFICE, now: utc('00:00') },
    decision: 'allow',
  },
  {
    name: 'window end is exclusive (20:00 Shanghai)',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { ...OFFICE, now: utc('12:00') },
    decision: 'deny',
    reason: 'outside the time window a grant allows',
  },
  {
    name: 'now given as a Date',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { ...OFFICE, now: new Date(utc('02:00')) },
    decision: 'allow',
  },
  {
    name: 'operation no grant names denies',
    agent: 'support_bot',
    action: 'count',
    resource: 'es_orders',
    context: OFFICE,
    decision: 'deny',
    policyIds: [],
    reason: 'no grant allows es_orders.count for this agent',
  },
  {
    name: 'write without a grant denies',
    agent: 'support_bot',
    action: 'write',
    resource: 'es_orders',
    context: OFFICE,
    decision: 'deny',
    reason: 'no grant allows es_orders.write for this agent',
  },
  {
    name: "resource's allowedRoles permit reads",
    agent: 'support_bot',
    action: 'search',
    resource: 'es_customers',
    decision: 'allow',
    policyIds: ['resource/es_customers/access'],
    reason: "es_customers.search is allowed by the resource's allowed roles",
  },
  {
    name: 'allowedRoles never permit writes; readonly names the rule',
    agent: 'support_bot',
    action: 'write',
    resource: 'es_customers',
    decision: 'deny',
    policyIds: ['tollgate/read-only'],
    reason: 'resource is read-only',
  },
  {
    name: 'allowedRoles allow every read operation',
    agent: 'ops_bot',
    action: 'aggregate',
    resource: 'es_orders',
    decision: 'allow',
    policyIds: ['resource/es_orders/access'],
  },
  // require_approval
  {
    name: 'approval grant asks for approval',
    agent: 'ops_bot',
    action: 'write',
    resource: 'es_orders',
    decision: 'require_approval',
    policyIds: ['policy/support-read-orders/grant/1'],
    reason: 'es_orders.write needs a human approval for this agent',
  },
  {
    name: 'approval wins over a plain allow that also matches',
    agent: 'ops_bot',
    action: 'search',
    resource: 'es_invoices',
    decision: 'require_approval',
    policyIds: ['policy/guards/grant/3'],
  },
  {
    name: 'a grant for one operation does not cover another',
    agent: 'ops_bot',
    action: 'get',
    resource: 'es_invoices',
    decision: 'deny',
    reason: 'no grant allows es_invoices.get for this agent',
  },
  // deny grants with conditions
  {
    name: 'deny grant inside its CIDR overrides allowedRoles',
    agent: 'ops_bot',
    action: 'search',
    resource: 'es_customers',
    context: { sourceIp: '192.168.1.5' },
    decision: 'deny',
    policyIds: ['policy/guards/grant/1'],
    reason: 'denied by an IP restriction',
  },
  {
    name: 'deny grant outside its CIDR does not apply',
    agent: 'ops_bot',
    action: 'search',
    resource: 'es_customers',
    context: { sourceIp: '10.0.0.1' },
    decision: 'allow',
    policyIds: ['resource/es_customers/access'],
  },
  {
    name: 'deny grant with an IP list applies when the IP is unknown (fail closed)',
    agent: 'ops_bot',
    action: 'search',
    resource: 'es_customers',
    decision: 'deny',
    policyIds: ['policy/guards/grant/1'],
  },
  {
    name: 'deny grant covers only its actions',
    agent: 'ops_bot',
    action: 'count',
    resource: 'es_customers',
    context: { sourceIp: '192.168.1.5' },
    decision: 'allow',
  },
  // a window that crosses midnight in Europe/Berlin (CEST, UTC+2 in June)
  {
    name: 'cross-midnight window: 23:30 Berlin allows',
    agent: 'night_batch',
    action: 'count',
    resource: 'es_orders',
    context: { now: utc('21:30') },
    decision: 'allow',
    policyIds: ['policy/night-batch/grant/0'],
  },
  {
    name: 'cross-midnight window: 22:00 Berlin (start) allows',
    agent: 'night_batch',
    action: 'count',
    resource: 'es_orders',
    context: { now: utc('20:00') },
    decision: 'allow',
  },
  {
    name: 'cross-midnight window: 05:59 Berlin allows',
    agent: 'night_batch',
    action: 'count',
    resource: 'es_orders',
    context: { now: utc('03:59') },
    decision: 'allow',
  },
  {
    name: 'cross-midnight window: 06:00 Berlin (end) denies',
    agent: 'night_batch',
    action: 'count',
    resource: 'es_orders',
    context: { now: utc('04:00') },
    decision: 'deny',
    reason: 'outside the time window a grant allows',
  },
  {
    name: 'cross-midnight window: 14:00 Berlin denies',
    agent: 'night_batch',
    action: 'count',
    resource: 'es_orders',
    context: { now: utc('12:00') },
    decision: 'deny',
    reason: 'outside the time window a grant allows',
  },
  {
    name: 'cross-midnight window in winter (CET, UTC+1): 21:30Z is 22:30 Berlin',
    agent: 'night_batch',
    action: 'count',
    resource: 'es_orders',
    context: { now: Date.parse('2025-01-15T21:30:00Z') },
    decision: 'allow',
  },
  {
    name: 'cross-midnight window in winter: 20:30Z is 21:30 Berlin',
    agent: 'night_batch',
    action: 'count',
    resource: 'es_orders',
    context: { now: Date.parse('2025-01-15T20:30:00Z') },
    decision: 'deny',
  },
  // wildcards
  {
    name: 'explicit agent grant names only its actions',
    agent: 'night_batch',
    action: 'search',
    resource: 'es_orders',
    context: { now: utc('21:30') },
    decision: 'deny',
    reason: 'no grant allows es_orders.search for this agent',
  },
  {
    name: '<resource>.* covers write on a writable resource',
    agent: 'night_batch',
    action: 'write',
    resource: 'es_invoices',
    context: { now: utc('21:30') },
    decision: 'allow',
  },
  {
    name: '<resource>.* still bound by its window',
    agent: 'night_batch',
    action: 'write',
    resource: 'es_invoices',
    context: { now: utc('12:00') },
    decision: 'deny',
  },
  {
    name: '*.count covers any resource',
    agent: 'analyst',
    action: 'count',
    resource: 'es_orders',
    decision: 'allow',
    policyIds: ['policy/analysts/grant/0'],
  },
  {
    name: '*.aggregate covers any resource',
    agent: 'analyst',
    action: 'aggregate',
    resource: 'es_customers',
    decision: 'allow',
  },
  {
    name: '*.count does not cover search',
    agent: 'analyst',
    action: 'search',
    resource: 'es_orders',
    decision: 'deny',
  },
  // readonly vs write grants
  {
    name: 'write grant on a writable resource allows',
    agent: 'analyst',
    action: 'write',
    resource: 'es_invoices',
    decision: 'allow',
    policyIds: ['policy/analysts/grant/1'],
  },
  {
    name: 'write grant on a read-only resource denies',
    agent: 'analyst',
    action: 'write',
    resource: 'es_customers',
    decision: 'deny',
    policyIds: ['tollgate/read-only'],
    reason: 'resource is read-only',
  },
  // environment
  {
    name: 'environment condition met',
    agent: 'analyst',
    action: 'search',
    resource: 'es_audit',
    principal: { environment: 'staging' },
    decision: 'allow',
    policyIds: ['policy/analysts/grant/3'],
  },
  {
    name: 'environment mismatch denies whatever grants say',
    agent: 'analyst',
    action: 'search',
    resource: 'es_audit',
    decision: 'deny',
    policyIds: ['tollgate/environment-match'],
    reason: "the caller's environment does not match the resource's environment",
  },
  {
    name: 'access roles in the right environment',
    agent: 'auditor',
    action: 'search',
    resource: 'es_audit',
    principal: { environment: 'staging' },
    decision: 'allow',
  },
  {
    name: 'access roles in the wrong environment',
    agent: 'auditor',
    action: 'search',
    resource: 'es_audit',
    principal: { environment: 'dev' },
    decision: 'deny',
    policyIds: ['tollgate/environment-match'],
  },
  // deny overrides allow
  {
    name: 'deny *.* for a role overrides a matching allow grant',
    agent: 'intern_bot',
    action: 'search',
    resource: 'es_orders',
    context: OFFICE,
    decision: 'deny',
    policyIds: ['policy/guards/grant/0'],
    reason: 'es_orders.search is denied for this agent by a deny grant',
  },
  {
    name: 'deny *.* overrides allowedRoles',
    agent: 'intern_bot',
    action: 'get',
    resource: 'es_customers',
    decision: 'deny',
    policyIds: ['policy/guards/grant/0'],
  },
  {
    name: 'tenant and environment guards outrank a deny grant in the reason',
    agent: 'intern_bot',
    action: 'search',
    resource: 'es_audit',
    decision: 'deny',
    reason: "the caller's environment does not match the resource's environment",
  },
  {
    name: 'nothing is allowed by default',
    agent: 'nobody',
    action: 'search',
    resource: 'es_customers',
    decision: 'deny',
    policyIds: [],
    reason: 'no grant allows es_customers.search for this agent',
  },
  {
    name: 'roles a caller claims are ignored',
    agent: 'nobody',
    action: 'search',
    resource: 'es_customers',
    principal: { roles: ['order_ops', 'support'] },
    decision: 'deny',
  },
  // limit cap
  {
    name: 'limit at the cap allows',
    agent: 'ops_bot',
    action: 'search',
    resource: 'es_orders',
    context: { limit: 100 },
    decision: 'allow',
  },
  {
    name: 'limit above the cap denies',
    agent: 'ops_bot',
    action: 'search',
    resource: 'es_orders',
    context: { limit: 101 },
    decision: 'deny',
    policyIds: ['tollgate/limit-cap'],
    reason: 'requested limit 101 exceeds the cap of 100',
  },
  {
    name: 'each resource has its own cap',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_customers',
    context: { limit: 51 },
    decision: 'deny',
    reason: 'requested limit 51 exceeds the cap of 50',
  },
  // unknown principal, tenant
  {
    name: 'agent not in the bundle',
    agent: 'ghost',
    action: 'search',
    resource: 'es_customers',
    decision: 'deny',
    reason: 'unknown agent: "ghost" is not declared in this tenant',
    errorCode: 'POLICY_DENIED',
  },
  {
    name: 'principal from another tenant',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_customers',
    principal: { tenant: 'team-b' },
    decision: 'deny',
    policyIds: ['tollgate/tenant-isolation'],
    reason: 'principal and resource belong to different tenants',
  },
  {
    name: 'resource not in the bundle',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_nothing',
    decision: 'deny',
    reason: 'unknown resource: "es_nothing" is not declared in this tenant',
  },
  // malformed context
  {
    name: 'bad IPv4',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { sourceIp: '10.1.2' },
    decision: 'deny',
    reason: 'malformed request: context.sourceIp "10.1.2" is not an IP address',
  },
  {
    name: 'IPv6 with a zone id',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { sourceIp: 'fe80::1%eth0' },
    decision: 'deny',
    reason: /^malformed request: context.sourceIp/,
  },
  {
    name: 'IP as a number',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_orders',
    context: { sourceIp: 167837955 as unknown as string },
    decision: 'deny',
    reason: /^malformed request/,
  },
  {
    name: 'missing environment',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_customers',
    principal: { environment: undefined },
    decision: 'deny',
    reason: 'malformed request: principal.environment is required',
  },
  {
    name: 'missing tenant',
    agent: 'support_bot',
    action: 'search',
    resource: 'es_customers',
    principal: { tenant: '' },
    decision: 'deny',
    reason: 'malformed request: principal.tenant is required',
  },
  {
    name: 'limit zero',
    agent: 'ops_bot',
    action: 'search',
    resource: 'es_orders',
    context: { limit: 0 },
    decision: 'deny',
    reason: 'malformed request: context.limit must be a positive whole number',
  },
  {
    name: 'fractional limit',
    agent: 'ops_bot',
    action: 'search',
    resource: 'es_orders',
    context: { limit: 2.5 },
    decision: 'deny',
    reason: /context.limit/,
  },
  {
    name: 'invalid time',
    agent: 'ops_bot',
    action: 'search',
    resource: 'es_orders',
    context: { now: new Date('nope') },
    decision: 'deny',
    reason: 'malformed request: context.now must be a valid time',
  },
  {
    name: 'unknown context attribute',
    agent: 'ops_bot',
    action: 'search',
    resource: 'es_orders',
    context: { ip: '10.0.0.1' },
    decision: 'deny',
    reason: 'malformed request: context.ip is not a known attribute',
  },
  {
    name: 'unknown operation',
    agent: 'ops_bot',
    action: 'delete',
    resource: 'es_orders',
    decision: 'deny',
    reason: 'unknown operation: "es_orders" has no operation "delete"',
  },
];

describe('decide - decision table', () => {
  let decider: LocalDecider;
  beforeAll(() => {
    decider = LocalDecider.fromBundle(compiled(), { clock: () => utc('02:00') });
  });

  test('decide - table has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  test.each(cases)('decide - $name', (c) => {
    const principal = {
      tenant: TENANT,
      agent: c.agent,
      environment: 'prod',
      ...c.principal,
    } as Principal;
    const result = decider.decide(principal, c.action as Operation, c.resource, c.context);
    expect(result.decision).toBe(c.decision);
    if (c.policyIds) expect(result.policyIds).toEqual(c.policyIds);
    if (typeof c.reason === 'string') expect(result.reason).toBe(c.reason);
    if (c.reason instanceof RegExp) expect(result.reason).toMatch(c.reason);
    if (c.decision === 'deny') expect(result.errorCode).toBe(c.errorCode ?? 'POLICY_DENIED');
    else expect(result.errorCode).toBeUndefined();
  });
});

describe('decide - caching and reasons', () => {
  test('decide - a cached decision equals a fresh one', () => {
    const cached = LocalDecider.fromBundle(compiled());
    const fresh = LocalDecider.fromBundle(compiled(), { cacheSize: 0 });
    const principal = { tenant: TENANT, agent: 'support_bot', environment: 'prod' };
    for (const now of [utc('02:00'), utc('13:00'), utc('02:00')]) {
      const a = cached.decide(principal, 'search', 'es_orders', { ...OFFICE, now });
      const b = fresh.decide(principal, 'search', 'es_orders', { ...OFFICE, now });
      expect(a).toEqual(b);
    }
  });

  test('decide - reasons never contain Cedar text', () => {
    const decider = LocalDecider.fromBundle(compiled());
    const principal = { tenant: TENANT, agent: 'intern_bot', environment: 'prod' };
    const result = decider.decide(principal, 'search', 'es_orders', OFFICE);
    expect(result.reason).not.toMatch(/forbid|permit|principal in|Role::/);
  });

  test('decide - the decider clock is used when the call gives no time', () => {
    const decider = LocalDecider.fromBundle(compiled(), { clock: () => utc('13:00') });
    const principal = { tenant: TENANT, agent: 'support_bot', environment: 'prod' };
    expect(
      decider.decide(principal, 'search', 'es_orders', { sourceIp: '10.1.2.3' }).decision,
    ).toBe('deny');
  });
});
