import type { DeadLetter } from '../store.js';
import type { RecordDraft } from '../record.js';
import { EVENTS_STREAM } from '@tollgate/kit';
import { readEvent } from './decode.js';
import { chainOf, draftRecord } from './draft.js';
import { screenEvent } from './screen.js';

/** One message of the events stream, as much of it as preparing a record needs. */
export interface StreamMessage {
  subject: string;
  data: Uint8Array;
  /** How many times JetStream has delivered it (1 the first time). */
  deliveries: number;
  streamSequence: number;
}

export interface PrepareLimits {
  /** From this many deliveries on, a message is dead-lettered instead of recorded. */
  poisonDeliveries: number;
  /** Argument objects larger than this (canonical JSON, bytes) are replaced by a marker. */
  maxArgumentBytes: number;
}

/** What to do with one message: record it in a chain, or set it aside as a dead letter. */
export type Preparation =
  | {
      kind: 'record';
      chain: string;
      draft: RecordDraft;
      /** Delivered before: its record may be stored already. */
      redelivered: boolean;
      redacted: number;
      truncated: boolean;
    }
  | { kind: 'dead'; letter: DeadLetter };

/** Decides, without I/O, what becomes of one message. */
export function prepareMessage(
  message: StreamMessage,
  limits: PrepareLimits,
  now: Date,
): Preparation {
  const dead = (reason: string, known = { tenant: '', eventId: '', type: '' }): Preparation => ({
    kind: 'dead',
    letter: {
      _id: `${EVENTS_STREAM}/${message.streamSequence}`,
      received_at: now,
      subject: message.subject,
      stream_sequence: message.streamSequence,
      deliveries: message.deliveries,
      reason,
      tenant: known.tenant,
      event_id: known.eventId,
      type: known.type,
      data: Buffer.from(message.data).toString('base64'),
    },
  });
  const reading = readEvent(message.subject, message.data);
  if (!reading.ok) return dead(reading.reason, reading);
  const event = reading.event;
  const known = { tenant: event.tenant, eventId: event.eventId, type: event.type };
  if (message.deliveries >= limits.poisonDeliveries) {
    return dead(`delivered ${message.deliveries} times without being recorded`, known);
  }
  try {
    const screening = screenEvent(event, limits.maxArgumentBytes);
    return {
      kind: 'record',
      chain: chainOf(event),
      draft: draftRecord(screening.event),
      redelivered: message.deliveries > 1,
      redacted: screening.redacted,
      truncated: screening.truncated,
    };
  } catch (err) {
    return dead(`cannot build a record: ${(err as Error).message}`, known);
  }
}
