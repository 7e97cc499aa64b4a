import { createHash } from 'node:crypto';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { EventEnvelopeSchema } from '@tollgate/contracts/events/v1';
import type { EventType } from '@tollgate/contracts/bus';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import type { EventPublisher } from './events.js';
import { currentTraceId } from './trace.js';

/** The current envelope schema version; consumers dead-letter versions they don't know. */
export const EVENT_SCHEMA_VERSION = 1;

type Payload = MessageInitShape<typeof EventEnvelopeSchema>['payload'];

/** Builds an envelope (fresh id, now, current trace) around one event payload. */
export function envelope(
  type: EventType,
  tenant: string,
  payload: Payload,
  eventId: string = crypto.randomUUID(),
): EventEnvelope {
  return create(EventEnvelopeSchema, {
    eventId,
    type,
    occurredAt: timestampFromDate(new Date()),
    tenant,
    traceId: currentTraceId(),
    schemaVersion: EVENT_SCHEMA_VERSION,
    payload,
  });
}

/**
 * A UUID-shaped event id derived from `parts` (name-based, version 5 layout): the same fact
 * announced twice — by two instances, or again after a restart — carries the same id, so
 * JetStream and audit store it once.
 */
export function derivedEventId(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\n')).digest('hex');
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function encodeEnvelope(e: EventEnvelope): Uint8Array {
  return toBinary(EventEnvelopeSchema, e);
}

/** Decodes an envelope; throws on bytes that are not one (callers dead-letter those). */
export function decodeEnvelope(bytes: Uint8Array): EventEnvelope {
  return fromBinary(EventEnvelopeSchema, bytes);
}

/** Publishes an envelope and waits for JetStream to store it. */
export async function publishEnvelope(publisher: EventPublisher, e: EventEnvelope): Promise<void> {
  await publisher.publish(e.type as EventType, e.eventId, encodeEnvelope(e), e.tenant);
}
