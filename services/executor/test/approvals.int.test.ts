import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clone } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { jetstreamManager } from '@nats-io/jetstream';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { ApprovalSchema, ApprovalStatus } from '@tollgate/contracts/policy/v1';
import type { Approval } from '@tollgate/contracts/policy/v1';
import type { PublishedSavedQuery } from '@tollgate/core';
import { EVENTS_STREAM, EventPublisher, EventTypes, encodeEnvelope, envelope } from '@tollgate/kit';
import { ORDERS_MAPPING, ordersResource } from '../../../test/fixtures/orders.js';
import { eventually, uniqueName } from '../../../test/support/infra.js';
import { ES_URL, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';

let h: Harness;
const index = uniqueName('tg_exec_approvals').toLowerCase();

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  await h.es.indices.create({ index, mappings: ORDERS_MAPPING as never });
  const descriptor = ordersResource({ endpoint: ES_URL, index, readonly: false });
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  h.running = await h.startExecutor();
  // A second instance shares the durable consumer: each decision reaches one of them.
  await h.startExecutor();
});
afterAll(async () => {
  await h?.es.indices.delete({ index, ignore_unavailable: true });
  await h?.stop();
});

async function version(id: string): Promise<number | undefined> {
  const doc = await h.es.get({ index, id }, { ignore: [404] });
  return doc.found ? (doc._version as number) : undefined;
}

/** Parks a clerk write and returns the call and the approval the executor asked for. */
async function park(id: string): Promise<{ callId: string; approval: Approval }> {
  const answer = await h.call(
    'es_orders_write',
    { id, document: { status: 'refunded' } },
    { agent: 'clerk_bot', idempotencyKey: `key-${id}` },
  );
  expect(answer.status).toBe('pending_approval');
  const requested = await h.eventOf(answer.callId, EventTypes.approvalRequested);
  if (requested.payload.case !== 'approvalRequested') throw new Error('no approval');
  const approval = requested.payload.value.approval!;
  expect(approval.id).toBe(answer.approvalId);
  return { callId: answer.callId, approval };
}

/** Publishes a decision on JetStream the way the policy service does; returns its sequence. */
async function decide(
  approval: Approval,
  status: ApprovalStatus,
  change: Partial<Approval> = {},
): Promise<number> {
  const decided = clone(ApprovalSchema, approval);
  Object.assign(decided, {
    status,
    decidedBy: 'approver_bot',
    decidedAt: timestampFromMs(Date.now()),
    ...change,
  });
  const event = envelope(EventTypes.approvalDecided, approval.principal!.tenant, {
    case: 'approvalDecided',
    value: { approval: decided },
  });
  const { seq } = await new EventPublisher(h.nc).publish(
    EventTypes.approvalDecided,
    event.eventId,
    encodeEnvelope(event),
    approval.principal!.tenant,
  );
  return seq;
}

/** Waits until the executors' durable consumer has settled everything up to `seq`. */
async function settled(seq: number): Promise<void> {
  const jsm = await jetstreamManager(h.nc);
  await eventually(async () => {
    const info = await jsm.consumers.info(EVENTS_STREAM, 'executor-approvals');
    return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0 ? true : undefined;
  }, 20_000);
}

function completions(callId: string, status: string) {
  return h.events.filter(
    (e) =>
      e.payload.case === 'callCompleted' &&
      e.payload.value.callId === callId &&
      CallStatus[e.payload.value.status] === status,
  );
}

describe('approvals - parked calls run exactly once after a person decides', () => {
  it('approvals - require_approval parks the call, answers pending_approval and asks the policy service', async () => {
    const { callId, approval } = await park('a-1');
    expect(approval).toMatchObject({
      status: ApprovalStatus.PENDING,
      resource: 'es_orders',
      resourceVersion: 1,
      tool: 'es_orders_write',
      callId,
      policyIds: ['policy/orders-access/grant/2'],
    });
    expect(approval.principal).toMatchObject({
      tenant: 'team-a',
      agent: 'clerk_bot',
      environment: 'prod',
    });
    expect(approval.argumentsHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(approval.arguments).toEqual({ id: 'a-1', document: { status: 'refunded' } });
    const pending = await h.eventOf(callId, EventTypes.callCompleted, 'PENDING_APPROVAL');
    if (pending.payload.case === 'callCompleted')
      expect(pending.payload.value.approvalId).toBe(approval.id);
    const polled = await h.poll(callId, 'clerk_bot');
    expect(polled).toMatchObject({ status: 'pending_approval', approvalId: approval.id });
    expect(await version('a-1')).toBeUndefined();
  });

  it('approvals - on approval the call runs once; the result arrives as an event and by polling', async () => {
    const { callId, approval } = await park('a-2');
    const seq = await decide(approval, ApprovalStatus.APPROVED);
    const done = await h.eventOf(callId, EventTypes.callCompleted, 'OK');
    if (done.payload.case === 'callCompleted')
      expect(done.payload.value.approvalId).toBe(approval.id);
    const polled = await h.poll(callId, 'clerk_bot');
    expect(polled).toMatchObject({ status: 'ok', data: { _id: 'a-2', result: 'created' } });
    expect(await version('a-2')).toBe(1);
    // The same decision delivered again changes nothing.
    await settled(seq);
    const again = await decide(approval, ApprovalStatus.APPROVED);
    await settled(again);
    expect(await version('a-2')).toBe(1);
    expect(completions(callId, 'OK')).toHaveLength(1);
  });

  it('approvals - a saved-query write parks its expanded arguments and resumes without the saved query', async () => {
    const refund: PublishedSavedQuery = {
      kind: 'saved_query',
      id: 'cap-refund',
      tenant: 'team-a',
      agent: 'clerk_bot',
      user: '',
      name: 'refund_order',
      revision: 1,
      contentHash: '7'.repeat(64),
      description: 'Refund one order.',
      tool: 'es_orders_write',
      arguments: { id: '0', document: { status: 'refunded' } },
      parameters: [{ name: 'order_id', path: '/id', type: 'string', description: 'Order id' }],
    };
    await h.putMemory(refund);
    const callRefund = () =>
      h.call(
        'sq_refund_order',
        { order_id: 'a-8' },
        { agent: 'clerk_bot', subjectResource: 'es_orders', idempotencyKey: 'key-sq-a-8' },
      );
    const answer = await eventually(async () => {
      const a = await callRefund();
      return a.status === 'pending_approval' ? a : undefined;
    });
    expect(answer.meta).toMatchObject({ tool: 'sq_refund_order' });
    const requested = await h.eventOf(answer.callId, EventTypes.approvalRequested);
    if (requested.payload.case !== 'approvalRequested') throw new Error('no approval');
    const approval = requested.payload.value.approval!;
    // The person approves the base-tool call that will run, not the saved query's parameters.
    expect(approval).toMatchObject({ tool: 'es_orders_write', callId: answer.callId });
    expect(approval.arguments).toEqual({ id: 'a-8', document: { status: 'refunded' } });
    // The saved query goes away before the decision: the parked call does not need it.
    await h.deleteMemory(refund);
    await eventually(async () =>
      (await callRefund()).error?.code === 'UNKNOWN_TOOL' ? true : undefined,
    );
    await decide(approval, ApprovalStatus.APPROVED);
    const done = await h.eventOf(answer.callId, EventTypes.callCompleted, 'OK');
    if (done.payload.case !== 'callCompleted') throw new Error('not call.completed');
    expect(done.payload.value).toMatchObject({ tool: 'es_orders_write', approvalId: approval.id });
    expect(done.payload.value.savedQuery).toMatchObject({
      id: 'cap-refund',
      name: 'refund_order',
      tool: 'sq_refund_order',
    });
    expect(await h.poll(answer.callId, 'clerk_bot')).toMatchObject({ status: 'ok' });
    expect(await version('a-8')).toBe(1);
  });

  it('approvals - a rejection completes the call with APPROVAL_REJECTED and writes nothing', async () => {
    const { callId, approval } = await park('a-3');
    await decide(approval, ApprovalStatus.REJECTED, { reason: 'refund needs a receipt' });
    await h.eventOf(callId, EventTypes.callCompleted, 'ERROR');
    const polled = await h.poll(callId, 'clerk_bot');
    expect(polled.error).toMatchObject({
      code: 'APPROVAL_REJECTED',
      category: 'needs_human',
      message: 'A person rejected this call: refund needs a receipt. Do not repeat it unchanged.',
    });
    expect(await version('a-3')).toBeUndefined();
  });

  it('approvals - an expired approval completes the call with APPROVAL_EXPIRED', async () => {
    const { callId, approval } = await park('a-4');
    await decide(approval, ApprovalStatus.EXPIRED);
    await h.eventOf(callId, EventTypes.callCompleted, 'ERROR');
    expect((await h.poll(callId, 'clerk_bot')).error).toMatchObject({ code: 'APPROVAL_EXPIRED' });
    expect(await version('a-4')).toBeUndefined();
  });

  it('approvals - an approval bound to other arguments does not run the call', async () => {
    const { callId, approval } = await park('a-5');
    await decide(approval, ApprovalStatus.APPROVED, { argumentsHash: `sha256:${'0'.repeat(64)}` });
    await h.eventOf(callId, EventTypes.callCompleted, 'ERROR');
    expect((await h.poll(callId, 'clerk_bot')).error).toMatchObject({ code: 'APPROVAL_REJECTED' });
    expect(await version('a-5')).toBeUndefined();
  });

  it('approvals - a resource changed after parking is not written with the approval of the old version', async () => {
    const { callId, approval } = await park('a-6');
    const descriptor = ordersResource({
      endpoint: ES_URL,
      index,
      readonly: false,
      timeoutMs: 4_000,
    });
    await h.publishResource(descriptor, 2);
    await h.publishBundle([{ descriptor, version: 2 }], 2);
    await eventually(async () =>
      (await h.call('es_orders_get', { id: 'a-2' }, { agent: 'ops_bot' })).meta?.resourceVersion ===
      2
        ? true
        : undefined,
    );
    await decide(approval, ApprovalStatus.APPROVED);
    await h.eventOf(callId, EventTypes.callCompleted, 'ERROR');
    expect((await h.poll(callId, 'clerk_bot')).error).toMatchObject({ code: 'VERSION_CONFLICT' });
    expect(await version('a-6')).toBeUndefined();
  });

  it('approvals - only the caller can poll a parked call', async () => {
    const { callId } = await park('a-7');
    const other = await h.poll(callId, 'ops_bot');
    expect(other).toMatchObject({ status: 'rejected', error: { code: 'NOT_FOUND' } });
  });
});
