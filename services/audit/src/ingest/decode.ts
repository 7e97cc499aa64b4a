import { EventEnvelopeSchema } from '@tollgate/contracts/events/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { EVENT_SCHEMA_VERSION, EventTypes, decodeEnvelope, subjects } from '@tollgate/kit';
import type { EventType } from '@tollgate/kit';

/** An event off the stream: a valid envelope, or why it cannot be recorded (dead letter). */
export type EventReading =
  | { ok: true; event: EventEnvelope }
  | { ok: false; reason: string; tenant: string; eventId: string; type: string };

type PayloadCase = NonNullable<EventEnvelope['payload']['case']>;

/** Which payload each event type carries. */
const PAYLOAD_OF: Record<EventType, PayloadCase> = {
  [EventTypes.resourceChanged]: 'resourceChanged',
  [EventTypes.policyChanged]: 'policyChanged',
  [EventTypes.callStarted]: 'callStarted',
  [EventTypes.callCompleted]: 'callCompleted',
  [EventTypes.callDenied]: 'callDenied',
  [EventTypes.approvalRequested]: 'approvalRequested',
  [EventTypes.approvalDecided]: 'approvalDecided',
  [EventTypes.memoryWritten]: 'memoryWritten',
  [EventTypes.toolsListed]: 'toolsListed',
  [EventTypes.toolWithdrawn]: 'toolWithdrawn',
};

const TENANT = /^[a-z0-9][a-z0-9-]{0,62}$/;
const EVENT_ID = /^[\x21-\x7e]{1,128}$/;

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(PAYLOAD_OF, type);
}

/**
 * Decodes and checks one message of the events stream. Bytes that are not an envelope, an
 * unknown `schema_version`, an unknown type, a payload that does not match the type or the
 * subject, or a tenant that is not a tenant name are all refused with a reason.
 */
export function readEvent(subject: string, data: Uint8Array): EventReading {
  let event: EventEnvelope;
  try {
    event = decodeEnvelope(data);
  } catch (err) {
    return refuse(undefined, `not a ${EventEnvelopeSchema.typeName}: ${(err as Error).message}`);
  }
  const problem = envelopeProblem(subject, event);
  return problem === undefined ? { ok: true, event } : refuse(event, problem);
}

/** The subject an event of this type and tenant belongs on; undefined for an impossible tenant. */
function eventSubject(type: EventType, tenant: string): string | undefined {
  try {
    return subjects.event(type, tenant);
  } catch {
    return undefined;
  }
}

function envelopeProblem(subject: string, event: EventEnvelope): string | undefined {
  if (event.schemaVersion !== EVENT_SCHEMA_VERSION) {
    return `schema_version ${event.schemaVersion} is unknown (audit reads ${EVENT_SCHEMA_VERSION})`;
  }
  if (!EVENT_ID.test(event.eventId)) {
    return `event_id: expected 1-128 printable characters, found ${JSON.stringify(event.eventId.slice(0, 140))}`;
  }
  if (!isEventType(event.type)) {
    return `type: unknown event type ${JSON.stringify(event.type.slice(0, 80))}`;
  }
  const expectedSubject = eventSubject(event.type, event.tenant);
  // An impossible tenant is reported by the tenant check below.
  if (expectedSubject !== undefined && subject !== expectedSubject) {
    return `type ${event.type} was published on subject ${subject}`;
  }
  const expected = PAYLOAD_OF[event.type];
  if (event.payload.case !== expected) {
    return `payload: type ${event.type} needs payload ${expected}, found ${event.payload.case ?? 'none'}`;
  }
  if (!event.occurredAt) return 'occurred_at: missing';
  if (event.tenant !== '' && !TENANT.test(event.tenant)) {
    return `tenant: expected a tenant name, found ${JSON.stringify(event.tenant.slice(0, 80))}`;
  }
  const principalTenant = payloadTenant(event);
  if (principalTenant && principalTenant !== event.tenant) {
    return `tenant: the envelope says ${JSON.stringify(event.tenant)} but the payload says ${JSON.stringify(principalTenant)}`;
  }
  return undefined;
}

/** The tenant the payload itself names, when it names one. */
function payloadTenant(event: EventEnvelope): string | undefined {
  const p = event.payload;
  switch (p.case) {
    case 'callStarted':
    case 'callCompleted':
    case 'callDenied':
    case 'toolsListed':
      return p.value.principal?.tenant;
    case 'approvalRequested':
    case 'approvalDecided':
      return p.value.approval?.principal?.tenant;
    case 'resourceChanged':
    case 'policyChanged':
    case 'memoryWritten':
    case 'toolWithdrawn':
      return p.value.tenant;
    default:
      return undefined;
  }
}

function refuse(event: EventEnvelope | undefined, reason: string): EventReading {
  return {
    ok: false,
    reason,
    tenant: event?.tenant ?? '',
    eventId: event?.eventId ?? '',
    type: event?.type ?? '',
  };
}
