import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcStatus } from '@tollgate/contracts';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { ApprovalStatus } from '@tollgate/contracts/policy/v1';
import type { Approval } from '@tollgate/contracts/policy/v1';
import { EventTypes } from '@tollgate/kit';
import { approvalBindingHash } from '@tollgate/policy';
import { APPROVAL_COLLECTIONS, DEAD_LETTERS } from '../src/index.js';
import {
  agentDescriptor,
  cast,
  eventually,
  requestApproval,
  startHarness,
  uniqueTenant,
  watchEvents,
} from './harness.js';
import type { Harness, ParkedCall } from './harness.js';
import { rpcError } from './support.js';

let h: Harness;
let tenant: string;
let who: ReturnType<typeof cast>;
let decided: { events: EventEnvelope[]; stop(): Promise<void> };
/** Added to the service's clock: moving it forward expires approvals without waiting. */
let skewMs = 0;

beforeAll(async () => {
  h = await startHarness({ clock: () => new Date(Date.now() + skewMs) });
  tenant = uniqueTenant();
  who = cast(tenant);
  const as = await h.as(who.operator);
  await h.client.applyAgent(
    { descriptor: agentDescriptor(tenant, 'operator', ['admin', 'approver']) as never },
    as,
  );
  await h.client.applyAgent(
    { descriptor: agentDescriptor(tenant, 'ops-console', ['approver']) as never },
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
  await h.client.applyAgent(
    { descriptor: agentDescriptor(tenant, 'read-only', ['viewer']) as never },
    as,
  );
  decided = await watchEvents(h.nc, [EventTypes.approvalDecided]);
});
afterAll(async () => {
  await decided?.stop();
  await h?.close();
});

function writeCall(args: Record<string, unknown> = { id: 'o-1', status: 'refunded' }): ParkedCall {
  return {
    principal: who.ops,
    resource: 'es_orders',
    resourceVersion: 3,
    tool: 'es_orders_write',
    args,
  };
}

/** Waits until the consumer recorded the approval. */
async function recorded(id: string): Promise<Approval> {
  const as = await h.as(who.alice);
  return eventually(async () => {
    try {
      return (await h.client.getApproval({ id }, as)).approval;
    } catch {
      return undefined;
    }
  });
}

function decisionFor(id: string): Promise<Approval> {
  return eventually(() => {
    const event = decided.events.find(
      (e) => e.payload.case === 'approvalDecided' && e.payload.value.approval?.id === id,
    );
    return event?.payload.case === 'approvalDecided' ? event.payload.value.approval : undefined;
  });
}

describe('approvals', () => {
  it('approvals - lifecycle: requested → pending → approved once; the record keeps the binding hash; a second decision is refused', async () => {
    const call = writeCall();
    const { id, hash, callId } = await requestApproval(h.nc, call);
    const pending = await recorded(id);
    expect(pending).toMatchObject({
      status: ApprovalStatus.PENDING,
      argumentsHash: hash,
      callId,
      resourceVersion: 3,
    });
    expect(pending.principal).toMatchObject({ agent: 'ops_bot', user: 'bob' });
    expect(pending.arguments).toEqual(call.args);

    const list = await h.client.listPending({}, await h.as(who.alice));
    expect(list.approvals.map((a) => a.id)).toContain(id);

    const approved = await h.client.approve(
      { id, reason: 'refund confirmed by phone' },
      await h.as(who.alice),
    );
    expect(approved.approval).toMatchObject({
      status: ApprovalStatus.APPROVED,
      decidedBy: 'ops-console/alice',
      reason: 'refund confirmed by phone',
      argumentsHash: hash,
    });
    const event = await decisionFor(id);
    expect(event).toMatchObject({
      status: ApprovalStatus.APPROVED,
      argumentsHash: hash,
      callId,
      decidedBy: 'ops-console/alice',
    });

    // Single use: no second decision of any kind.
    const again = await rpcError(h.client.approve({ id }, await h.as(who.operator)));
    expect(again.code).toBe(RpcStatus.FAILED_PRECONDITION);
    expect(again.message).toContain('already approved by "ops-console/alice"');
    const late = await rpcError(h.client.reject({ id }, await h.as(who.operator)));
    expect(late.code).toBe(RpcStatus.FAILED_PRECONDITION);
    expect(
      (await h.client.listPending({}, await h.as(who.alice))).approvals.map((a) => a.id),
    ).not.toContain(id);
    expect(
      decided.events.filter(
        (e) => e.payload.case === 'approvalDecided' && e.payload.value.approval?.id === id,
      ),
    ).toHaveLength(1);

    // What the executor checks on resume: the same call hashes to the recorded hash, changed arguments never do.
    const binding = {
      principal: call.principal,
      resourceName: call.resource,
      resourceVersion: call.resourceVersion,
      tool: call.tool,
    };
    expect(approvalBindingHash({ ...binding, args: { status: 'refunded', id: 'o-1' } })).toBe(
      event.argumentsHash,
    );
    expect(approvalBindingHash({ ...binding, args: { id: 'o-2', status: 'refunded' } })).not.toBe(
      event.argumentsHash,
    );
    expect(approvalBindingHash({ ...binding, resourceVersion: 4, args: call.args })).not.toBe(
      event.argumentsHash,
    );
  });

  it('approvals - of concurrent approvals and rejections exactly one decides', async () => {
    const { id } = await requestApproval(h.nc, writeCall({ id: 'o-race' }));
    await recorded(id);
    const alice = await h.as(who.alice);
    const operator = await h.as(who.operator);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0 ? h.client.approve({ id }, alice) : h.client.reject({ id }, operator),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes)
      if (o.status === 'rejected')
        expect((o.reason as { code: number }).code).toBe(RpcStatus.FAILED_PRECONDITION);
    await decisionFor(id);
    const events = decided.events.filter(
      (e) => e.payload.case === 'approvalDecided' && e.payload.value.approval?.id === id,
    );
    expect(events).toHaveLength(1);
  });

  it('approvals - reject publishes REJECTED and a later approve is refused', async () => {
    const { id } = await requestApproval(h.nc, writeCall({ id: 'o-rej' }));
    await recorded(id);
    const rejected = await h.client.reject(
      { id, reason: 'not this one' },
      await h.as(who.operator),
    );
    expect(rejected.approval).toMatchObject({
      status: ApprovalStatus.REJECTED,
      decidedBy: 'operator',
    });
    expect((await decisionFor(id)).status).toBe(ApprovalStatus.REJECTED);
    const refused = await rpcError(h.client.approve({ id }, await h.as(who.alice)));
    expect(refused.code).toBe(RpcStatus.FAILED_PRECONDITION);
    expect(refused.tollgateCode).toBe('APPROVAL_REJECTED');
  });

  it('approvals - self-approval is refused: same agent and user, or the same human through another agent', async () => {
    const { id } = await requestApproval(h.nc, writeCall({ id: 'o-self' }));
    await recorded(id);
    // bob made the request through ops_bot; bob through the console is still bob.
    const bob = await rpcError(h.client.approve({ id }, await h.as(who.bob)));
    expect(bob.code).toBe(RpcStatus.PERMISSION_DENIED);
    expect(bob.message).toContain('its own request');
    const own = await requestApproval(h.nc, {
      ...writeCall({ id: 'o-own' }),
      principal: who.operator,
    });
    await recorded(own.id);
    const operator = await rpcError(h.client.approve({ id: own.id }, await h.as(who.operator)));
    expect(operator.code).toBe(RpcStatus.PERMISSION_DENIED);
    expect((await h.client.getApproval({ id }, await h.as(who.alice))).approval?.status).toBe(
      ApprovalStatus.PENDING,
    );
  });

  it('approvals - only approvers of the tenant decide or list; others get PERMISSION_DENIED or NOT_FOUND', async () => {
    const { id } = await requestApproval(h.nc, writeCall({ id: 'o-auth' }));
    await recorded(id);
    const support = await h.as(who.support);
    expect((await rpcError(h.client.approve({ id }, support))).code).toBe(
      RpcStatus.PERMISSION_DENIED,
    );
    expect((await rpcError(h.client.reject({ id }, support))).code).toBe(
      RpcStatus.PERMISSION_DENIED,
    );
    expect((await rpcError(h.client.listPending({}, support))).code).toBe(
      RpcStatus.PERMISSION_DENIED,
    );
    // The requester may read its own approval (to follow it), not decide it.
    const mine = await h.client.getApproval({ id }, await h.as(who.ops));
    expect(mine.approval?.status).toBe(ApprovalStatus.PENDING);
    expect((await rpcError(h.client.approve({ id }, await h.as(who.ops)))).code).toBe(
      RpcStatus.PERMISSION_DENIED,
    );
    // An approver of another tenant does not see it at all.
    const outsider = await h.as({ ...who.alice, tenant: uniqueTenant() });
    expect((await rpcError(h.client.approve({ id }, outsider))).code).toBe(RpcStatus.NOT_FOUND);
    expect((await rpcError(h.client.getApproval({ id }, outsider))).code).toBe(RpcStatus.NOT_FOUND);
    expect((await h.client.getApproval({ id }, await h.as(who.alice))).approval?.status).toBe(
      ApprovalStatus.PENDING,
    );
  });

  it('approvals - a viewer lists and reads approvals and declarations, and decides or changes nothing', async () => {
    const { id } = await requestApproval(h.nc, writeCall({ id: 'o-viewer' }));
    await recorded(id);
    const viewer = await h.as({ tenant, agent: 'read-only', environment: 'prod', user: 'vic' });
    const pending = await h.client.listPending({}, viewer);
    expect(pending.approvals.map((a) => a.id)).toContain(id);
    expect((await h.client.getApproval({ id }, viewer)).approval?.status).toBe(
      ApprovalStatus.PENDING,
    );
    expect((await h.client.listAgents({}, viewer)).agents.map((a) => a.name)).toContain(
      'read-only',
    );
    expect((await h.client.listPolicies({}, viewer)).policies).toEqual(expect.any(Array));
    for (const refused of [
      () => h.client.approve({ id, reason: 'looks fine' }, viewer),
      () => h.client.reject({ id }, viewer),
      () =>
        h.client.applyAgent(
          { descriptor: agentDescriptor(tenant, 'sneaky', ['admin']) as never },
          viewer,
        ),
    ]) {
      expect((await rpcError(refused())).code).toBe(RpcStatus.PERMISSION_DENIED);
    }
    expect((await h.client.getApproval({ id }, viewer)).approval?.status).toBe(
      ApprovalStatus.PENDING,
    );
  });

  it('approvals - an expired approval cannot be approved; it is marked EXPIRED and announced', async () => {
    const { id } = await requestApproval(h.nc, writeCall({ id: 'o-late' }));
    await recorded(id);
    skewMs = 31 * 60_000;
    try {
      expect(
        (await h.client.listPending({}, await h.as(who.alice))).approvals.map((a) => a.id),
      ).not.toContain(id);
      const late = await rpcError(h.client.approve({ id }, await h.as(who.alice)));
      expect(late.code).toBe(RpcStatus.FAILED_PRECONDITION);
      expect(late.tollgateCode).toBe('APPROVAL_EXPIRED');
      expect(await decisionFor(id)).toMatchObject({
        status: ApprovalStatus.EXPIRED,
        decidedBy: '',
      });
      const again = await rpcError(h.client.approve({ id }, await h.as(who.alice)));
      expect(again.tollgateCode).toBe('APPROVAL_EXPIRED');
    } finally {
      skewMs = 0;
    }
  });

  it('approvals - the sweeper expires overdue approvals nobody touched', async () => {
    const { id } = await requestApproval(h.nc, writeCall({ id: 'o-swept' }), {
      expiresAt: new Date(Date.now() + 60_000),
    });
    await recorded(id);
    skewMs = 2 * 60_000;
    try {
      const swept = await h.parts.approvals.sweep();
      expect(swept.expired).toBeGreaterThanOrEqual(1);
      expect(await decisionFor(id)).toMatchObject({ status: ApprovalStatus.EXPIRED });
    } finally {
      skewMs = 0;
    }
    expect((await h.client.getApproval({ id }, await h.as(who.alice))).approval?.status).toBe(
      ApprovalStatus.EXPIRED,
    );
  });

  it('approvals - a redelivered request is recorded once; malformed requests and reused ids are dead-lettered', async () => {
    const call = writeCall({ id: 'o-dup' });
    const { id } = await requestApproval(h.nc, call);
    await requestApproval(h.nc, call, { id }); // same approval again (another event id)
    await recorded(id);
    const reasons = () =>
      h.mongo.db
        .collection(DEAD_LETTERS)
        .find({})
        .toArray()
        .then((all) => all.map((l) => String(l.reason)));
    await requestApproval(h.nc, writeCall({ id: 'o-other' }), { id }); // id reused for another call
    const badHash = await requestApproval(h.nc, writeCall(), {
      init: { argumentsHash: 'md5:abc' },
    });
    const notPending = await requestApproval(h.nc, writeCall(), {
      init: { status: ApprovalStatus.APPROVED },
    });
    const expected = [
      `approval id ${id} is already recorded for another call`,
      'approval.arguments_hash: expected sha256:<64 hex digits>, found "md5:abc"',
      'approval.status: expected PENDING, found "APPROVED"',
    ];
    // (Other runs' malformed events may be dead-lettered too: this database's consumer replays the stream.)
    await eventually(async () => {
      const all = await reasons();
      return expected.every((r) => all.includes(r)) ? true : undefined;
    });
    const stored = await h.mongo.db
      .collection(APPROVAL_COLLECTIONS.approvals)
      .find({ _id: { $in: [id, badHash.id, notPending.id] } as never })
      .toArray();
    expect(stored.map((d) => d._id)).toEqual([id]);
    expect((await h.client.getApproval({ id }, await h.as(who.alice))).approval?.arguments).toEqual(
      call.args,
    );
  });

  it('approvals - a decision whose event was not stored is announced by the next sweep', async () => {
    const { id } = await requestApproval(h.nc, writeCall({ id: 'o-outbox' }));
    const approval = await recorded(id);
    // As if the service stopped between recording the decision and publishing its event.
    const at = new Date(Date.now() - 60_000);
    await h.mongo.db.collection(APPROVAL_COLLECTIONS.decisions).insertOne({
      _id: id as never,
      tenant,
      status: 'rejected',
      decidedBy: 'operator',
      reason: 'offline decision',
      decidedAt: at,
      publishedAt: null,
    });
    const swept = await h.parts.approvals.sweep();
    expect(swept.republished).toBeGreaterThanOrEqual(1);
    expect(await decisionFor(id)).toMatchObject({
      status: ApprovalStatus.REJECTED,
      reason: 'offline decision',
      callId: approval.callId,
    });
    expect((await h.client.getApproval({ id }, await h.as(who.alice))).approval?.status).toBe(
      ApprovalStatus.REJECTED,
    );
  });
});
