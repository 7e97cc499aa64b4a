import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { EventTypes } from '@tollgate/kit';
import { describe, expect, it } from 'vitest';
import { dedupeKey, draftRecord } from '../src/ingest/draft.js';
import { prepareMessage } from '../src/ingest/prepare.js';
import type { Preparation, StreamMessage } from '../src/ingest/prepare.js';
import {
  callCompleted,
  callDenied,
  approvalEvent,
  onStream,
  toolsListed,
  tweak,
} from './support/events.js';

const limits = { poisonDeliveries: 5, maxArgumentBytes: 8192 };
const now = new Date('2026-03-01T10:00:00.000Z');

function message(m: Partial<StreamMessage> & { subject: string; data: Uint8Array }): StreamMessage {
  return { deliveries: 1, streamSequence: 42, ...m };
}

function deadReason(p: Preparation): string {
  if (p.kind !== 'dead') throw new Error(`expected a dead letter, got a record`);
  return p.letter.reason;
}

describe('prepare', () => {
  it('prepare - a valid call.completed becomes a record with its facets', () => {
    const event = callCompleted({
      callId: 'c-1',
      sessionId: 's-9',
      status: CallStatus.ERROR,
      errorCode: ErrorCode.ARGUMENTS_INVALID,
    });
    const p = prepareMessage(message(onStream(event)), limits, now);
    expect(p.kind).toBe('record');
    if (p.kind !== 'record') return;
    expect(p.chain).toBe('team-a');
    expect(p.draft).toMatchObject({
      _id: 'team-a/call.completed/c-1/error',
      tenant: 'team-a',
      type: 'call.completed',
      event_id: event.eventId,
      session_id: 's-9',
      call_id: 'c-1',
      agent: 'support_bot',
      user: 'u-7',
      tool: 'es_orders_search',
      tool_version: 'v-hash-1',
      resource: 'es_orders',
      resource_version: 3,
      status: 'error',
      decision: 'allow',
      policy_ids: ['support-read-orders'],
      error_code: 'ARGUMENTS_INVALID',
      error_category: 'fix_arguments',
      latency_ms: 12,
      upstream_status: 200,
      returned: 10,
      total: 340,
      truncated: false,
      bytes: 2048,
    });
    expect(JSON.parse(p.draft.event)).toMatchObject({
      eventId: event.eventId,
      type: 'call.completed',
    });
  });

  it('prepare - call.denied, approvals and tools.listed carry session, call and approval facets', () => {
    const denied = draftRecord(callDenied({ callId: 'c-2', sessionId: 's-2' }));
    expect(denied).toMatchObject({
      _id: 'team-a/call.denied/c-2',
      decision: 'deny',
      error_code: 'POLICY_DENIED',
      policy_ids: ['deny-writes'],
    });
    const approval = draftRecord(approvalEvent(EventTypes.approvalRequested, { sessionId: 's-2' }));
    expect(approval).toMatchObject({
      session_id: 's-2',
      approval_id: 'ap-1',
      call_id: 'c-write',
      tool: 'es_orders_write',
    });
    const listed = draftRecord(toolsListed({ sessionId: 's-2' }));
    expect(listed).toMatchObject({ session_id: 's-2', agent: 'support_bot', type: 'tools.listed' });
  });

  it('prepare - a call outcome is keyed by call id and status, other events by event id', () => {
    const a = callCompleted({ callId: 'c-1' });
    const b = callCompleted({ callId: 'c-1' });
    expect(a.eventId).not.toBe(b.eventId);
    expect(dedupeKey(a)).toBe(dedupeKey(b));
    expect(
      dedupeKey(callCompleted({ callId: 'c-1', status: CallStatus.PENDING_APPROVAL })),
    ).not.toBe(dedupeKey(a));
    const listed = toolsListed();
    expect(dedupeKey(listed)).toBe(`event/${listed.eventId}`);
  });

  it('prepare - an envelope without tenant goes to the unattributed chain', () => {
    const event = callDenied({ tenant: '' });
    const p = prepareMessage(message(onStream(event)), limits, now);
    expect(p).toMatchObject({ kind: 'record', chain: '_unattributed' });
  });

  it('prepare - bytes that are not an envelope are dead-lettered with their raw bytes', () => {
    const data = new Uint8Array([0xff, 0xff, 0xff, 0x01]);
    const p = prepareMessage(
      message({ subject: 'tollgate.v1.evt.call.completed', data }),
      limits,
      now,
    );
    expect(p.kind).toBe('dead');
    if (p.kind !== 'dead') return;
    expect(p.letter).toMatchObject({
      _id: 'TOLLGATE_EVENTS/42',
      subject: 'tollgate.v1.evt.call.completed',
      data: Buffer.from(data).toString('base64'),
      deliveries: 1,
      stream_sequence: 42,
      received_at: now,
    });
    expect(p.letter.reason).toMatch(/^not a tollgate\.events\.v1\.EventEnvelope: /);
  });

  it('prepare - malformed envelopes are dead-lettered with the reason', () => {
    const good = callCompleted({ tenant: 'team-a' });
    const cases: Array<[string, StreamMessage]> = [
      [
        'schema_version 2 is unknown (audit reads 1)',
        message(onStream(tweak(good, { schemaVersion: 2 }))),
      ],
      [
        'schema_version 0 is unknown (audit reads 1)',
        message({ subject: 'tollgate.v1.evt.call.completed', data: new Uint8Array() }),
      ],
      [
        'event_id: expected 1-128 printable characters, found ""',
        message(onStream(tweak(good, { eventId: '' }))),
      ],
      [
        'type: unknown event type "call.exploded"',
        message({ ...onStream(good), data: onStream(tweak(good, { type: 'call.exploded' })).data }),
      ],
      [
        'type call.completed was published on subject tollgate.v1.evt.call.denied',
        message({ ...onStream(good), subject: 'tollgate.v1.evt.call.denied' }),
      ],
      [
        'payload: type call.completed needs payload callCompleted, found none',
        message(onStream(tweak(good, { payload: { case: undefined } }))),
      ],
      ['occurred_at: missing', message(onStream(tweak(good, { occurredAt: undefined })))],
      [
        'tenant: expected a tenant name, found "Team A"',
        message(onStream(tweak(good, { tenant: 'Team A' }))),
      ],
      [
        'tenant: the envelope says "team-b" but the payload says "team-a"',
        message(onStream(tweak(good, { tenant: 'team-b' }))),
      ],
    ];
    for (const [reason, msg] of cases)
      expect(deadReason(prepareMessage(msg, limits, now))).toBe(reason);
  });

  it('prepare - a message delivered too often is dead-lettered, keeping what could be read', () => {
    const event = callCompleted();
    const p = prepareMessage(message({ ...onStream(event), deliveries: 5 }), limits, now);
    expect(p).toMatchObject({
      kind: 'dead',
      letter: {
        reason: 'delivered 5 times without being recorded',
        tenant: 'team-a',
        event_id: event.eventId,
        type: 'call.completed',
      },
    });
    expect(prepareMessage(message({ ...onStream(event), deliveries: 4 }), limits, now).kind).toBe(
      'record',
    );
  });

  it('prepare - occurred_at is kept to the millisecond', () => {
    const event = callCompleted();
    event.occurredAt = timestampFromDate(new Date('2026-03-01T09:59:59.123Z'));
    expect(draftRecord(event).occurred_at.toISOString()).toBe('2026-03-01T09:59:59.123Z');
  });
});
