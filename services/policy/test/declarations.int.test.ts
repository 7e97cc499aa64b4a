import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcStatus } from '@tollgate/contracts';
import { DiffOperation } from '@tollgate/contracts/common/v1';
import { PolicySubject } from '@tollgate/contracts/events/v1';
import { DecisionEffect } from '@tollgate/contracts/policy/v1';
import { EventTypes, policyBundleKey } from '@tollgate/kit';
import { TenantDeciders } from '../src/index.js';
import {
  agentDescriptor,
  cast,
  eventually,
  logger,
  policyDescriptor,
  publishedResource,
  startHarness,
  uniqueTenant,
  watchEvents,
} from './harness.js';
import type { Harness } from './harness.js';
import { rpcError } from './support.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const readOrders = (tenant: string, actions = ['es_orders.search']) =>
  policyDescriptor(tenant, 'support-read', {
    grants: [{ effect: 'allow', principals: { roles: ['support'] }, actions }],
  });

/** A tenant with its operator (admin, approver) and support_bot declared. */
async function tenantWithAgents(): Promise<{ tenant: string; who: ReturnType<typeof cast> }> {
  const tenant = uniqueTenant();
  const who = cast(tenant);
  const as = await h.as(who.operator);
  await h.client.applyAgent(
    { descriptor: agentDescriptor(tenant, 'operator', ['admin', 'approver']) as never },
    as,
  );
  await h.client.applyAgent(
    { descriptor: agentDescriptor(tenant, 'support_bot', ['support']) as never },
    as,
  );
  return { tenant, who };
}

describe('declarations', () => {
  it('declarations - bootstrap: the first Agent of a tenant must be the caller itself with the admin role', async () => {
    const tenant = uniqueTenant();
    const who = cast(tenant);
    const before = await h.counts(tenant);

    const notSelf = await rpcError(
      h.client.applyAgent(
        { descriptor: agentDescriptor(tenant, 'ops_bot', ['admin']) as never },
        await h.as(who.operator),
      ),
    );
    expect(notSelf.code).toBe(RpcStatus.PERMISSION_DENIED);
    expect(notSelf.message).toContain('has no agents yet');
    const notAdmin = await rpcError(
      h.client.applyAgent(
        { descriptor: agentDescriptor(tenant, 'support_bot', ['support']) as never },
        await h.as(who.support),
      ),
    );
    expect(notAdmin.code).toBe(RpcStatus.PERMISSION_DENIED);
    expect(await h.counts(tenant)).toEqual(before);

    const first = await h.client.applyAgent(
      { descriptor: agentDescriptor(tenant, 'operator', ['admin', 'approver']) as never },
      await h.as(who.operator),
    );
    expect(first.agent).toMatchObject({
      name: 'operator',
      version: 1,
      roles: ['admin', 'approver'],
    });
    expect(first.bundleVersion).toBeGreaterThanOrEqual(1);

    // Bootstrap is over: an undeclared principal may not apply agents any more.
    const late = await rpcError(
      h.client.applyAgent(
        { descriptor: agentDescriptor(tenant, 'support_bot', ['admin']) as never },
        await h.as(who.support),
      ),
    );
    expect(late.code).toBe(RpcStatus.PERMISSION_DENIED);
    expect(late.message).toContain('not a declared Agent');

    await h.client.applyAgent(
      { descriptor: agentDescriptor(tenant, 'support_bot', ['support']) as never },
      await h.as(who.operator),
    );
    const denied = await rpcError(
      h.client.applyPolicy({ descriptor: readOrders(tenant) as never }, await h.as(who.support)),
    );
    expect(denied.code).toBe(RpcStatus.PERMISSION_DENIED);
    expect(denied.message).toContain('holds none of the roles admin');
  });

  it('declarations - apply makes version 1, the same input is a no-op, a change makes version 2 with its diff, each change republishes the bundle', async () => {
    const { tenant, who } = await tenantWithAgents();
    const as = await h.as(who.operator);
    const watch = await watchEvents(h.nc, [EventTypes.policyChanged]);
    try {
      const first = await h.client.applyPolicy({ descriptor: readOrders(tenant) as never }, as);
      expect(first.unchanged).toBe(false);
      expect(first.policy).toMatchObject({
        tenant,
        name: 'support-read',
        version: 1,
        deleted: false,
      });
      expect(first.policy?.cedar).toContain('@id("policy/support-read/grant/0")');
      expect(first.policy?.createdBy).toBe('operator');
      // Apply returns once the bundle including the change is in KV.
      const inKv = await eventually(async () => {
        const bundle = await h.bundleInKv(tenant, null);
        return bundle?.version === first.bundleVersion ? bundle : undefined;
      });
      expect(inKv.hash).toBe(first.bundleHash);
      expect(inKv.policies.map((p) => p.id)).toContain('policy/support-read/grant/0');

      const again = await h.client.applyPolicy({ descriptor: readOrders(tenant) as never }, as);
      expect(again).toMatchObject({ unchanged: true, diff: [], bundleVersion: 0 });
      expect(again.policy?.version).toBe(1);
      expect((await h.bundleInKv(tenant, null))?.version).toBe(first.bundleVersion);

      const changed = readOrders(tenant, ['es_orders.search', 'es_orders.get']);
      const second = await h.client.applyPolicy(
        { descriptor: changed as never, expectedVersion: 1 },
        as,
      );
      expect(second.policy?.version).toBe(2);
      expect(second.bundleVersion).toBe(first.bundleVersion + 1);
      expect(second.diff).toHaveLength(1);
      expect(second.diff[0]).toMatchObject({
        path: 'spec.grants',
        operation: DiffOperation.CHANGED,
      });

      const stale = await rpcError(
        h.client.applyPolicy({ descriptor: readOrders(tenant) as never, expectedVersion: 1 }, as),
      );
      expect(stale.code).toBe(RpcStatus.ABORTED);
      expect(stale.tollgateCode).toBe('VERSION_CONFLICT');
      const exists = await rpcError(
        h.client.applyPolicy({ descriptor: readOrders(tenant) as never, expectedVersion: 0 }, as),
      );
      expect(exists.message).toContain('already exists (version 2)');

      const v1 = await h.client.getPolicy({ name: 'support-read', version: 1 }, as);
      expect(v1.policy?.descriptor).toEqual(readOrders(tenant));
      expect((await h.client.getPolicy({ name: 'support-read' }, as)).policy?.version).toBe(2);

      const removed = await h.client.deletePolicy({ name: 'support-read' }, as);
      expect(removed.policy).toMatchObject({ version: 3, deleted: true });
      const gone = await rpcError(h.client.getPolicy({ name: 'support-read' }, as));
      expect(gone.code).toBe(RpcStatus.NOT_FOUND);
      expect(gone.message).toContain('was deleted (version 3)');
      expect((await h.bundleInKv(tenant, null))?.policies.map((p) => p.id)).not.toContain(
        'policy/support-read/grant/0',
      );
      const revived = await h.client.applyPolicy({ descriptor: readOrders(tenant) as never }, as);
      expect(revived.policy?.version).toBe(4);

      const changes = await eventually(() => (watch.events.length >= 4 ? watch.events : undefined));
      const payloads = changes.map((e) =>
        e.payload.case === 'policyChanged' ? e.payload.value : undefined,
      );
      expect(payloads.map((p) => [p?.subject, p?.name, p?.version, p?.deleted])).toEqual([
        [PolicySubject.POLICY, 'support-read', 1, false],
        [PolicySubject.POLICY, 'support-read', 2, false],
        [PolicySubject.POLICY, 'support-read', 3, true],
        [PolicySubject.POLICY, 'support-read', 4, false],
      ]);
      expect(payloads[0]?.bundleHash).toBe(first.bundleHash);
    } finally {
      await watch.stop();
    }
  });

  it('declarations - lists page by page and reads agents', async () => {
    const { tenant, who } = await tenantWithAgents();
    const as = await h.as(who.operator);
    for (const name of ['p-one', 'p-two', 'p-three'])
      await h.client.applyPolicy(
        {
          descriptor: policyDescriptor(tenant, name, {
            grants: [
              { effect: 'allow', principals: { agents: ['support_bot'] }, actions: ['*.count'] },
            ],
          }) as never,
        },
        as,
      );
    const names: string[] = [];
    let pageToken = '';
    do {
      const page = await h.client.listPolicies({ pageSize: 2, pageToken }, as);
      names.push(...page.policies.map((p) => p.name));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    expect(names).toEqual(['p-one', 'p-three', 'p-two']);
    const agents = await h.client.listAgents({}, as);
    expect(agents.agents.map((a) => [a.name, a.roles])).toEqual([
      ['operator', ['admin', 'approver']],
      ['support_bot', ['support']],
    ]);
    // An agent reads its own declaration, not others'.
    const self = await h.client.getAgent({ name: 'support_bot' }, await h.as(who.support));
    expect(self.agent?.roles).toEqual(['support']);
    const other = await rpcError(h.client.getAgent({ name: 'operator' }, await h.as(who.support)));
    expect(other.code).toBe(RpcStatus.PERMISSION_DENIED);
  });

  it('declarations - invalid raw Cedar is refused with line and column, and nothing is stored', async () => {
    const { tenant, who } = await tenantWithAgents();
    const as = await h.as(who.operator);
    const bundleBefore = await h.bundleInKv(tenant, null);
    const before = await h.counts(tenant);

    const unknownAttribute = await rpcError(
      h.client.applyPolicy(
        {
          descriptor: policyDescriptor(tenant, 'raw', {
            cedar: 'forbid (principal, action, resource)\nwhen { resource.colour == "red" };',
          }) as never,
        },
        as,
      ),
    );
    expect(unknownAttribute.code).toBe(RpcStatus.INVALID_ARGUMENT);
    expect(unknownAttribute.tollgateCode).toBe('DESCRIPTOR_INVALID');
    expect(unknownAttribute.details[0]?.path).toBe('spec.cedar');
    expect(unknownAttribute.details[0]?.message).toMatch(
      /^line 2, column \d+: attribute `colour` on entity type `(Resource|Field)` not found/,
    );

    const syntax = await rpcError(
      h.client.applyPolicy(
        {
          descriptor: policyDescriptor(tenant, 'raw', {
            cedar: 'permit (principal, action, resource)\nwhen { principal in Role::"support" ;',
          }) as never,
        },
        as,
      ),
    );
    expect(syntax.details[0]).toMatchObject({ path: 'spec.cedar' });
    expect(syntax.details[0]?.message).toMatch(/^line 2, column \d+: /);

    const badGrant = await rpcError(
      h.client.applyPolicy(
        {
          descriptor: policyDescriptor(tenant, 'grants', {
            grants: [
              { effect: 'allow', principals: { roles: ['support'] }, actions: ['es_orders.drop'] },
            ],
          }) as never,
        },
        as,
      ),
    );
    expect(badGrant.code).toBe(RpcStatus.INVALID_ARGUMENT);
    expect(badGrant.details.map((d) => d.path)).toContain('spec.grants[0].actions[0]');

    expect(await h.counts(tenant)).toEqual(before);
    expect((await h.bundleInKv(tenant, null))?.version).toBe(bundleBefore?.version);

    // A dry run of a valid policy compiles it without storing anything.
    const dry = await h.client.applyPolicy(
      { descriptor: readOrders(tenant) as never, dryRun: true },
      as,
    );
    expect(dry.policy).toMatchObject({ version: 1, cedar: expect.stringContaining('permit') });
    expect(await h.counts(tenant)).toEqual(before);
  });

  it('declarations - resource changes in the registry bucket are compiled into the bundle', async () => {
    const { tenant, who } = await tenantWithAgents();
    const orders = publishedResource(tenant, 'es_orders', { allowedRoles: ['support'] });
    const decide = async () =>
      (await h.client.decide({ resource: 'es_orders', action: 'search' }, await h.as(who.support)))
        .decision;
    expect((await decide())?.reason).toContain('unknown resource');
    await h.putResource(orders);
    await eventually(async () =>
      (await decide())?.effect === DecisionEffect.ALLOW ? true : undefined,
    );
    const allowed = await decide();
    expect(allowed?.policyIds).toEqual(['resource/es_orders/access']);

    await h.putResource(
      publishedResource(tenant, 'es_orders', { allowedRoles: ['order_ops'] }, { version: 2 }),
    );
    await eventually(async () =>
      (await decide())?.effect === DecisionEffect.DENY ? true : undefined,
    );
    await h.deleteResource(orders);
    await eventually(async () =>
      (await decide())?.reason.includes('unknown resource') ? true : undefined,
    );
  });

  it('declarations - a LocalDecider watching the bundle bucket, as executors run it, loads each new bundle', async () => {
    const { tenant, who } = await tenantWithAgents();
    await h.putResource(publishedResource(tenant, 'es_orders', { allowedRoles: [] }));
    const executor = await TenantDeciders.start(h.parts.bundlesKv, logger);
    try {
      const principal = { tenant, agent: 'support_bot', environment: 'prod' };
      const decide = () =>
        executor.decider(tenant, 'prod').decide(principal, 'search', 'es_orders');
      await eventually(() => (decide().reason.includes('unknown resource') ? undefined : true));
      expect(decide().decision).toBe('deny');
      const applied = await h.client.applyPolicy(
        { descriptor: readOrders(tenant) as never },
        await h.as(who.operator),
      );
      await eventually(() => (decide().bundleVersion === applied.bundleVersion ? true : undefined));
      expect(decide()).toMatchObject({
        decision: 'allow',
        policyIds: ['policy/support-read/grant/0'],
      });
    } finally {
      executor.stop();
    }
  });

  it('declarations - at start-up an instance republishes every tenant bundle (a lost KV entry comes back, same version)', async () => {
    const { tenant, who } = await tenantWithAgents();
    const applied = await h.client.applyPolicy(
      { descriptor: readOrders(tenant) as never },
      await h.as(who.operator),
    );
    await h.parts.bundlesKv.delete(policyBundleKey(tenant));
    expect(await h.bundleInKv(tenant, null)).toBeUndefined();
    // No call, no change: the new instance's start-up pass restores it.
    const other = await h.startAnother();
    const back = await eventually(() => h.bundleInKv(tenant, null), 30_000);
    expect(back).toMatchObject({ version: applied.bundleVersion, hash: applied.bundleHash });
    // A second instance sharing the store claims new versions after the first one's.
    const second = await other.declarations.applyPolicy(
      who.operator,
      readOrders(tenant, ['es_orders.count']),
    );
    expect(second.bundle?.version).toBe(applied.bundleVersion + 1);
  });
});
