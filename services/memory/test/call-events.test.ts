import { describe, expect, it } from 'vitest';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { EventTypes, encodeEnvelope, envelope } from '@tollgate/kit';
import { readCallCompleted } from '../src/learning/call-reading.js';

const principal = { tenant: 'team-a', agent: 'bot', user: 'alice', environment: 'prod' };

function completed(value: Record<string, unknown>, tenant = 'team-a') {
  return envelope(EventTypes.callCompleted, tenant, { case: 'callCompleted', value }, 'evt-1');
}

describe('call events - reading call.completed', () => {
  it('call events - a valid event becomes a completed call of its principal', () => {
    const event = completed({
      callId: 'c-1',
      sessionId: 's-1',
      principal,
      tool: 'es_orders_search',
      resource: 'es_orders',
      arguments: { limit: 5 },
      status: CallStatus.OK,
    });
    event.occurredAt = timestampFromMs(1_000);
    expect(readCallCompleted(encodeEnvelope(event))).toEqual({
      ok: true,
      call: {
        eventId: 'evt-1',
        callId: 'c-1',
        sessionId: 's-1',
        owner: { tenant: 'team-a', agent: 'bot', user: 'alice' },
        environment: 'prod',
        tool: 'es_orders_search',
        resource: 'es_orders',
        arguments: { limit: 5 },
        ok: true,
        at: 1_000,
        viaSavedQuery: false,
      },
    });
  });

  it.each([
    [
      'bytes that are not an envelope',
      new TextEncoder().encode('{"json": true}'),
      'not an event envelope',
    ],
    [
      'an unknown schema version',
      encodeEnvelope({
        ...completed({ callId: 'c', principal, tool: 'a_search', resource: 'a_b' }),
        schemaVersion: 2,
      }),
      'schema_version 2 is unknown',
    ],
    [
      'another payload',
      encodeEnvelope(
        envelope(EventTypes.memoryWritten, 'team-a', { case: 'memoryWritten', value: {} }),
      ),
      'not callCompleted',
    ],
    [
      'no principal',
      encodeEnvelope(completed({ callId: 'c', tool: 'a_search', resource: 'a_b' })),
      'principal is missing',
    ],
    [
      'a principal of another tenant',
      encodeEnvelope(
        completed({ callId: 'c', principal, tool: 'a_search', resource: 'a_b' }, 'team-b'),
      ),
      'principal.tenant does not match the envelope',
    ],
    [
      'a bad tool name',
      encodeEnvelope(completed({ callId: 'c', principal, tool: 'Bad Tool', resource: 'a_b' })),
      'tool is not a tool name',
    ],
  ])('call events - %s is dead-lettered with a reason', (_case, bytes, reason) => {
    const reading = readCallCompleted(bytes);
    expect(reading.ok).toBe(false);
    expect(reading.ok ? '' : reading.reason).toContain(reason);
  });
});
