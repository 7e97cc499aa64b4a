/**
 * Reading a `call.completed` event into the call the learner needs, checked: from the bytes on
 * the bus (a pointer to the call, see audit-trail.ts) or from the envelope an audit record
 * holds (the call memory learns from).
 */
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { CallStatus } from '@tollgate/contracts/call/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { EVENT_SCHEMA_VERSION, decodeEnvelope } from '@tollgate/kit';
import type { CompletedCall } from './learner.js';

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const PRINCIPAL_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const ID = /^[\x21-\x7e]{1,128}$/;

/** A completed call ready to learn from, or why the event cannot be used. */
export type CallReading = { ok: true; call: CompletedCall } | { ok: false; reason: string };

/** Decodes and checks one `call.completed` message. */
export function readCallCompleted(data: Uint8Array): CallReading {
  let event: EventEnvelope;
  try {
    event = decodeEnvelope(data);
  } catch (err) {
    return { ok: false, reason: `not an event envelope: ${(err as Error).message}` };
  }
  return readCallEvent(event);
}

/** Checks one `call.completed` envelope. */
export function readCallEvent(event: EventEnvelope): CallReading {
  if (event.schemaVersion !== EVENT_SCHEMA_VERSION) {
    return { ok: false, reason: `schema_version ${event.schemaVersion} is unknown` };
  }
  if (event.payload.case !== 'callCompleted') {
    return {
      ok: false,
      reason: `payload is ${event.payload.case ?? 'missing'}, not callCompleted`,
    };
  }
  const c = event.payload.value;
  const p = c.principal;
  const problems: string[] = [];
  if (!ID.test(event.eventId)) problems.push('event_id is not an id');
  if (p === undefined) problems.push('principal is missing');
  else {
    if (!PRINCIPAL_NAME.test(p.tenant) || p.tenant !== event.tenant)
      problems.push('principal.tenant does not match the envelope');
    if (!PRINCIPAL_NAME.test(p.agent)) problems.push('principal.agent is not an agent name');
    if (p.user.length > 256) problems.push('principal.user is too long');
    if (!PRINCIPAL_NAME.test(p.environment)) problems.push('principal.environment is not a name');
  }
  if (!NAME.test(c.tool)) problems.push('tool is not a tool name');
  if (!NAME.test(c.resource)) problems.push('resource is not a resource name');
  if (!ID.test(c.callId)) problems.push('call_id is not an id');
  if (problems.length > 0 || p === undefined) return { ok: false, reason: problems.join('; ') };
  const at = event.occurredAt ? timestampMs(event.occurredAt) : Date.now();
  return {
    ok: true,
    call: {
      eventId: event.eventId,
      callId: c.callId,
      sessionId: c.sessionId,
      owner: { tenant: p.tenant, agent: p.agent, user: p.user },
      environment: p.environment,
      tool: c.tool,
      resource: c.resource,
      arguments: c.arguments ?? {},
      ok: c.status === CallStatus.OK,
      at,
      viaSavedQuery: c.savedQuery !== undefined,
    },
  };
}
