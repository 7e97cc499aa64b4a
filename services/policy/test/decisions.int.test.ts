import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcStatus } from '@tollgate/contracts';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { DecisionEffect } from '@tollgate/contracts/policy/v1';
import { policyBundleKey } from '@tollgate/kit';
import {
  agentDescriptor,
  cast,
  eventually,
  policyDescriptor,
  publishedResource,
  startHarness,
  uniqueTenant,
} from './harness.js';
import type { Harness } from './harness.js';
import { rpcError } from './support.js';

let h: Harness;
let tenant: string;
let who: ReturnType<typeof cast>;

/** The orders tenant: support reads (count only from the office), order_ops writes with approval. */
beforeAll(async () => {
  h = await startHarness();
  tenant = uniqueTenant();
  who = cast(tenant);
  const as = await h.as(who.operator);
  await h.putResource(
    publishedResource(tenant, 'es_orders', {
      allowedRoles: ['support'],
      readonly: false,
      maxLimit: 50,
      fieldRoles: { email: ['order_ops'] },
    }),
  );
  await h.client.applyAgent(
    { descriptor: agentDescriptor(tenant, 'operator', ['admin', 'approver']) as never },
    as,
  );
  await h.client.applyAgent(
    { descriptor: agentDescriptor(tenant, 'support_bot', ['support']) as never },
    as,
  );
  await h.client.applyAgent(
    { descriptor: agentDescriptor(tenant, 'ops_bot', ['order_ops']) as never },
    as,
  );
  await h.client.applyPolicy(
    {
      descriptor: policyDescriptor(tenant, 'ops-write', {
        grants: [
          {
            effect: 'require_approval',
            principals: { roles: ['order_ops'] },
            actions: ['es_orders.write'],
          },
          { effect: 'allow', principals: { roles: ['order_ops'] }, actions: ['es_orders.get'] },
        ],
      }) as never,
    },
    as,
  );
  await h.client.applyPolicy(
    {
      descriptor: policyDescriptor(tenant, 'office-only', {
        grants: [
          {
            effect: 'deny',
            principals: { roles: ['support'] },
            actions: ['es_orders.count'],
            conditions: { ipCidr: ['192.168.0.0/16'] },
          },
        ],
      }) as never,
    },
    as,
  );
  // The resource arrives through the watched bucket; wait until the bundle holds it.
  await eventually(async () =>
    (await h.bundleInKv(tenant))?.policies.some((p) => p.id === 'resource/es_orders/access')
      ? true
      : undefined,
  );
});
afterAll(async () => {
  await h?.close();
});

describe('decisions', () => {
  it('decisions - Decide answers allow, deny or require_approval with the deciding policies, a reason and an error code', async () => {
    const support = await h.as(who.support);
    const search = await h.client.decide({ resource: 'es_orders', action: 'search' }, support);
    expect(search.decision).toMatchObject({
      effect: DecisionEffect.ALLOW,
      policyIds: ['resource/es_orders/access'],
      errorCode: ErrorCode.UNSPECIFIED,
    });
    expect(search.decision?.bundleVersion).toBe((await h.bundleInKv(tenant))?.version);

    const write = await h.client.decide({ resource: 'es_orders', action: 'write' }, support);
    expect(write.decision).toMatchObject({
      effect: DecisionEffect.DENY,
      errorCode: ErrorCode.POLICY_DENIED,
    });
    expect(write.decision?.reason).not.toBe('');

    const tooMany = await h.client.decide(
      { resource: 'es_orders', action: 'search', context: { limit: 500 } },
      support,
    );
    expect(tooMany.decision?.effect).toBe(DecisionEffect.DENY);
    expect(tooMany.decision?.policyIds).toEqual(['tollgate/limit-cap']);

    const office = await h.client.decide(
      { resource: 'es_orders', action: 'count', sourceIp: '10.1.2.3' },
      support,
    );
    expect(office.decision?.effect).toBe(DecisionEffect.ALLOW);
    const guest = await h.client.decide(
      { resource: 'es_orders', action: 'count', sourceIp: '192.168.7.7' },
      support,
    );
    expect(guest.decision).toMatchObject({
      effect: DecisionEffect.DENY,
      policyIds: ['policy/office-only/grant/0'],
    });

    // An admin may ask on behalf of another agent; the agent itself may not ask about others.
    const opsWrite = await h.client.decide(
      { resource: 'es_orders', action: 'write', principal: { agent: 'ops_bot' } },
      await h.as(who.operator),
    );
    expect(opsWrite.decision).toMatchObject({
      effect: DecisionEffect.REQUIRE_APPROVAL,
      policyIds: ['policy/ops-write/grant/0'],
    });
    const nosy = await rpcError(
      h.client.decide(
        { resource: 'es_orders', action: 'write', principal: { agent: 'ops_bot' } },
        support,
      ),
    );
    expect(nosy.code).toBe(RpcStatus.PERMISSION_DENIED);
  });

  it('decisions - Explain gives operators the full trace; agents may not explain', async () => {
    const explained = await h.client.explain(
      {
        resource: 'es_orders',
        action: 'count',
        sourceIp: '192.168.7.7',
        principal: { agent: 'support_bot' },
      },
      await h.as(who.operator),
    );
    expect(explained.decision?.effect).toBe(DecisionEffect.DENY);
    expect(explained.matches).toContainEqual(
      expect.objectContaining({
        policyId: 'policy/office-only/grant/0',
        effect: DecisionEffect.DENY,
        policyName: 'office-only',
      }),
    );
    const trace = explained.trace as Record<string, unknown>;
    expect(trace.context).toMatchObject({ tenant, environment: 'prod' });
    expect(trace.request).toMatchObject({
      roles: ['support'],
      resource: 'es_orders',
      resourceVersion: 1,
    });
    expect(JSON.stringify(trace.determining)).toContain('192.168.0.0/16');
    expect(explained.permissionSet?.operations).toContain('search');
    const refused = await rpcError(
      h.client.explain({ resource: 'es_orders', action: 'search' }, await h.as(who.support)),
    );
    expect(refused.code).toBe(RpcStatus.PERMISSION_DENIED);
  });

  it('decisions - GetPermissionSet lists operations, fields, limit cap, and approval operations', async () => {
    const support = await h.client.getPermissionSet(
      { resource: 'es_orders' },
      await h.as(who.support),
    );
    expect(support.permissionSet).toMatchObject({
      operations: ['search', 'get', 'count', 'aggregate'],
      visibleFields: ['amount', 'id'],
      filterableFields: ['amount', 'id'],
      limitCap: 50,
    });
    expect(support.conditionalOperations).toEqual(['count']);
    const ops = await h.client.getPermissionSet(
      { resource: 'es_orders', principal: { agent: 'ops_bot' } },
      await h.as(who.operator),
    );
    expect(ops.permissionSet?.operations).toEqual(['get', 'write']);
    expect(ops.permissionSet?.visibleFields).toContain('email');
    expect(ops.approvalOperations).toEqual(['write']);
  });

  it('decisions - fail closed: no bundle or a corrupt bundle denies with POLICY_UNAVAILABLE until a good one is back', async () => {
    const stranger = { tenant: uniqueTenant(), agent: 'someone', environment: 'prod' };
    const none = await h.client.decide(
      { resource: 'es_orders', action: 'search' },
      await h.as(stranger),
    );
    expect(none.decision).toMatchObject({
      effect: DecisionEffect.DENY,
      errorCode: ErrorCode.POLICY_UNAVAILABLE,
    });
    const empty = await h.client.getPermissionSet({ resource: 'es_orders' }, await h.as(stranger));
    expect(empty.permissionSet?.operations).toEqual([]);
    expect(empty.unavailable).toContain('no policy bundle');

    const support = await h.as(who.support);
    const decide = async () =>
      (await h.client.decide({ resource: 'es_orders', action: 'search' }, support)).decision;
    await h.parts.bundlesKv.put(
      policyBundleKey(tenant, 'prod'),
      '{"format":"tollgate.policy-bundle/v1","tenant":"damaged"}',
    );
    const corrupt = await eventually(async () => {
      const d = await decide();
      return d?.errorCode === ErrorCode.POLICY_UNAVAILABLE ? d : undefined;
    });
    expect(corrupt.effect).toBe(DecisionEffect.DENY);

    // The reconciler republishes the tenant's bundle over the damaged entry.
    await h.parts.bundles.reconcile();
    await eventually(async () =>
      (await decide())?.effect === DecisionEffect.ALLOW ? true : undefined,
    );
  });

  it('decisions - the same resource name in dev and prod is two resources: a call in each is allowed, and a denial in one stays there', async () => {
    const t = uniqueTenant();
    const cast2 = cast(t);
    const as = await h.as(cast2.operator);
    await h.client.applyAgent(
      { descriptor: agentDescriptor(t, 'operator', ['admin', 'approver']) as never },
      as,
    );
    await h.client.applyAgent(
      { descriptor: agentDescriptor(t, 'support_bot', ['support']) as never },
      as,
    );
    await h.client.applyPolicy(
      {
        descriptor: policyDescriptor(t, 'no-dev-counts', {
          grants: [
            {
              effect: 'deny',
              principals: { roles: ['support'] },
              actions: ['es_orders.count'],
              conditions: { environment: ['dev'] },
            },
          ],
        }) as never,
      },
      as,
    );
    const dev = publishedResource(
      t,
      'es_orders',
      { allowedRoles: ['support'], maxLimit: 20 },
      { environment: 'dev' },
    );
    await h.putResource(dev);
    await h.putResource(
      publishedResource(t, 'es_orders', { allowedRoles: ['support'], maxLimit: 50 }),
    );
    const holdsOrders = async (environment: string) =>
      (await h.bundleInKv(t, environment))?.policies.some(
        (p) => p.id === 'resource/es_orders/access',
      );
    await eventually(async () =>
      (await holdsOrders('dev')) && (await holdsOrders('prod')) ? true : undefined,
    );

    const inDev = await h.as({ ...cast2.support, environment: 'dev' });
    const inProd = await h.as(cast2.support);
    const decide = async (action: string, call: { metadata: Record<string, string> }) =>
      (await h.client.decide({ resource: 'es_orders', action }, call)).decision;
    expect(await decide('search', inDev)).toMatchObject({
      effect: DecisionEffect.ALLOW,
      policyIds: ['resource/es_orders/access'],
    });
    expect(await decide('search', inProd)).toMatchObject({
      effect: DecisionEffect.ALLOW,
      policyIds: ['resource/es_orders/access'],
    });
    expect(await decide('count', inDev)).toMatchObject({
      effect: DecisionEffect.DENY,
      policyIds: ['policy/no-dev-counts/grant/0'],
    });
    expect((await decide('count', inProd))?.effect).toBe(DecisionEffect.ALLOW);
    // Each environment's resource keeps its own attributes.
    const cap = async (call: { metadata: Record<string, string> }) =>
      (await h.client.getPermissionSet({ resource: 'es_orders' }, call)).permissionSet?.limitCap;
    expect(await cap(inDev)).toBe(20);
    expect(await cap(inProd)).toBe(50);

    // The dev resource goes away: its bundle with it, and prod is untouched.
    await h.deleteResource(dev);
    await eventually(async () => ((await h.bundleInKv(t, 'dev')) === undefined ? true : undefined));
    await eventually(async () =>
      (await decide('search', inDev))?.reason.includes('unknown resource') ? true : undefined,
    );
    expect((await decide('search', inProd))?.effect).toBe(DecisionEffect.ALLOW);
  });
});
