import { create, fromJson } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AuditRecordSchema } from '@tollgate/contracts/audit/v1';
import type { AuditRecord } from '@tollgate/contracts/audit/v1';
import { EventEnvelopeSchema } from '@tollgate/contracts/events/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { MalformedRecordError } from '../record.js';
import type { AuditDocument } from '../record.js';

/** The envelope a stored record holds; a record whose event does not decode is malformed. */
export function storedEvent(doc: AuditDocument): EventEnvelope {
  try {
    return fromJson(EventEnvelopeSchema, JSON.parse(doc.event) as JsonValue);
  } catch {
    throw new MalformedRecordError(doc._id, 'event', 'an EventEnvelope in JSON form');
  }
}

/** The API form of a stored record. */
export function toAuditRecord(doc: AuditDocument, event = storedEvent(doc)): AuditRecord {
  return create(AuditRecordSchema, {
    id: doc._id,
    tenant: doc.tenant,
    sequence: BigInt(doc.seq),
    recordedAt: timestampFromDate(doc.recorded_at),
    event,
    prevHash: doc.prev_hash,
    hash: doc.hash,
  });
}
