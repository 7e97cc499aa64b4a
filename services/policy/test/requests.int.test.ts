import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcStatus } from '@tollgate/contracts';
import { agentDescriptor, cast, policyDescriptor, startHarness, uniqueTenant } from './harness.js';
import type { Harness } from './harness.js';
import { rpcError } from './support.js';

let h: Harness;
let tenant: string;
let who: ReturnType<typeof cast>;

beforeAll(async () => {
  h = await startHarness();
  tenant = uniqueTenant();
  who = cast(tenant);
  await h.client.applyAgent(
    { descriptor: agentDescriptor(tenant, 'operator', ['admin', 'approver']) as never },
    await h.as(who.operator),
  );
});
afterAll(async () => {
  await h?.close();
});

const UUID = '00000000-0000-4000-8000-000000000000';

/** One bad request per case: the field it names, and a fragment of the message. */
interface BadCase {
  name: string;
  call: () => Promise<unknown>;
  status?: RpcStatus;
  path: string;
  message: string | RegExp;
}

function cases(as: { metadata: Record<string, string> }): BadCase[] {
  const c = h.client;
  const policy = (spec: Record<string, unknown>) => policyDescriptor(tenant, 'bad-one', spec);
  return [
    {
      name: 'ApplyPolicy without a descriptor',
      call: () => c.applyPolicy({}, as),
      path: 'descriptor',
      message: 'required',
    },
    {
      name: 'ApplyPolicy with an Agent descriptor',
      call: () =>
        c.applyPolicy({ descriptor: agentDescriptor(tenant, 'x_bot', ['a1']) as never }, as),
      path: 'kind',
      message: 'ApplyPolicy stores Policy descriptors; apply Agent descriptors with ApplyAgent',
    },
    {
      name: 'ApplyPolicy with an unknown key',
      call: () =>
        c.applyPolicy(
          {
            descriptor: policy({
              cedar: 'forbid (principal, action, resource);',
              extra: 1,
            }) as never,
          },
          as,
        ),
      path: 'spec.extra',
      message: 'unknown key',
    },
    {
      name: 'ApplyPolicy with neither grants nor cedar',
      call: () => c.applyPolicy({ descriptor: policy({}) as never }, as),
      path: 'spec',
      message: 'at least one of grants or cedar',
    },
    {
      name: 'ApplyPolicy with a bad time window',
      call: () =>
        c.applyPolicy(
          {
            descriptor: policy({
              grants: [
                {
                  effect: 'allow',
                  principals: { roles: ['support'] },
                  actions: ['*.search'],
                  conditions: { timeWindow: '25:00-26:00 Mars/Base' },
                },
              ],
            }) as never,
          },
          as,
        ),
      path: 'spec.grants[0].conditions.timeWindow',
      message: /./,
    },
    {
      name: 'ApplyAgent with no roles',
      call: () => c.applyAgent({ descriptor: agentDescriptor(tenant, 'x_bot', []) as never }, as),
      path: 'spec.roles',
      message: /./,
    },
    {
      name: 'ApplyAgent with a secret in it',
      call: () =>
        c.applyAgent(
          {
            descriptor: agentDescriptor(tenant, 'x_bot', ['support'], {
              description: 'token ghp_0123456789abcdefghijABCDEFGHIJ012345',
            }) as never,
          },
          as,
        ),
      path: 'spec.description',
      message: 'looks like a secret',
    },
    {
      name: 'ApplyAgent without a descriptor',
      call: () => c.applyAgent({}, as),
      path: 'descriptor',
      message: 'required',
    },
    {
      name: 'GetPolicy without a name',
      call: () => c.getPolicy({}, as),
      path: 'name',
      message: 'required',
    },
    {
      name: 'GetPolicy with a bad name',
      call: () => c.getPolicy({ name: 'Bad Name' }, as),
      path: 'name',
      message: 'expected a name matching',
    },
    {
      name: 'GetPolicy with a bad tenant',
      call: () => c.getPolicy({ name: 'abc', tenant: 'NO PE' }, as),
      path: 'tenant',
      message: 'expected a tenant name',
    },
    {
      name: 'ListPolicies with a forged page token',
      call: () => c.listPolicies({ pageToken: 'eyJwIjoieiJ9' }, as),
      path: 'page_token',
      message: 'not a token from the previous page',
    },
    {
      name: 'DeletePolicy without a name',
      call: () => c.deletePolicy({}, as),
      path: 'name',
      message: 'required',
    },
    {
      name: 'GetAgent with a bad name',
      call: () => c.getAgent({ name: 'x' }, as),
      path: 'name',
      message: 'expected a name matching',
    },
    {
      name: 'ListAgents with a bad page token',
      call: () => c.listAgents({ pageToken: '!!' }, as),
      path: 'page_token',
      message: 'not a token',
    },
    {
      name: 'Decide without a resource',
      call: () => c.decide({ action: 'search' }, as),
      path: 'resource',
      message: 'required',
    },
    {
      name: 'Decide with a malformed action',
      call: () => c.decide({ resource: 'es_orders', action: 'Drop table' }, as),
      path: 'action',
      message: 'an operation name such as search',
    },
    {
      name: 'Decide with a bad source IP',
      call: () => c.decide({ resource: 'es_orders', action: 'search', sourceIp: '10.0.0.300' }, as),
      path: 'source_ip',
      message: 'an IPv4 or IPv6 address',
    },
    {
      name: 'Decide with an unknown context attribute',
      call: () =>
        c.decide({ resource: 'es_orders', action: 'search', context: { colour: 'red' } }, as),
      path: 'context.colour',
      message: 'unknown attribute (allowed: limit)',
    },
    {
      name: 'Decide with a bad limit',
      call: () => c.decide({ resource: 'es_orders', action: 'search', context: { limit: -5 } }, as),
      path: 'context.limit',
      message: 'a whole number',
    },
    {
      name: 'Decide for a principal without an agent',
      call: () => c.decide({ resource: 'es_orders', action: 'search', principal: { tenant } }, as),
      path: 'principal.agent',
      message: 'required',
    },
    {
      name: 'Explain with a malformed action',
      call: () => c.explain({ resource: 'es_orders', action: 'view_field' }, as),
      path: 'action',
      message: 'an operation name such as search',
    },
    {
      name: 'GetPermissionSet with a bad resource',
      call: () => c.getPermissionSet({ resource: 'Orders!' }, as),
      path: 'resource',
      message: 'a resource name matching',
    },
    {
      name: 'ListPending with a bad resource filter',
      call: () => c.listPending({ resource: 'X' }, as),
      path: 'resource',
      message: 'a resource name matching',
    },
    {
      name: 'GetApproval with a bad id',
      call: () => c.getApproval({ id: 'nope' }, as),
      path: 'id',
      message: 'an approval id',
    },
    {
      name: 'Approve without an id',
      call: () => c.approve({}, as),
      path: 'id',
      message: 'required',
    },
    {
      name: 'Approve with an overlong reason',
      call: () => c.approve({ id: UUID, reason: 'x'.repeat(1001) }, as),
      path: 'reason',
      message: 'at most 1000 characters',
    },
    {
      name: 'Reject with control characters',
      call: () => c.reject({ id: UUID, reason: 'a\u0000b' }, as),
      path: 'reason',
      message: 'control characters',
    },
  ];
}

describe('requests', () => {
  it('requests - bad input on every RPC is INVALID_ARGUMENT naming the field, and nothing is stored', async () => {
    const as = await h.as(who.operator);
    const before = await h.counts(tenant);
    const bundle = await h.bundleInKv(tenant, null);
    for (const bad of cases(as)) {
      const err = await rpcError(bad.call());
      expect(err.code, bad.name).toBe(bad.status ?? RpcStatus.INVALID_ARGUMENT);
      const detail = err.details.find((d) => d.path === bad.path);
      expect(detail, `${bad.name}: ${JSON.stringify(err.details)}`).toBeDefined();
      if (typeof bad.message === 'string') expect(detail?.message, bad.name).toContain(bad.message);
      else expect(detail?.message, bad.name).toMatch(bad.message);
    }
    expect(await h.counts(tenant)).toEqual(before);
    expect((await h.bundleInKv(tenant, null))?.version).toBe(bundle?.version);
  });

  it('requests - every RPC refuses calls without a valid token, and other tenants', async () => {
    const before = await h.counts(tenant);
    const anonymous = await rpcError(h.client.listPolicies({}));
    expect(anonymous.code).toBe(RpcStatus.UNAUTHENTICATED);
    const forged = await rpcError(
      h.client.applyAgent(
        { descriptor: agentDescriptor(tenant, 'x_bot', ['admin']) as never },
        { metadata: { authorization: 'Bearer not.a.token' } },
      ),
    );
    expect(forged.code).toBe(RpcStatus.UNAUTHENTICATED);
    const as = await h.as(who.operator);
    const other = uniqueTenant();
    const foreign = await rpcError(
      h.client.applyPolicy(
        {
          descriptor: policyDescriptor(other, 'grab', {
            cedar: 'permit (principal, action, resource);',
          }) as never,
        },
        as,
      ),
    );
    expect(foreign.code).toBe(RpcStatus.PERMISSION_DENIED);
    expect(foreign.tollgateCode).toBe('TENANT_MISMATCH');
    const foreignDecide = await rpcError(
      h.client.decide(
        {
          resource: 'es_orders',
          action: 'search',
          principal: { tenant: other, agent: 'operator' },
        },
        as,
      ),
    );
    expect(foreignDecide.tollgateCode).toBe('TENANT_MISMATCH');
    const foreignList = await rpcError(h.client.listPending({ tenant: other }, as));
    expect(foreignList.tollgateCode).toBe('TENANT_MISMATCH');
    expect(await h.counts(tenant)).toEqual(before);
    expect(await h.counts(other)).toEqual({});
  });
});
