/**
 * `memory.written` events: every memory write is announced on JetStream (and so reaches
 * audit) with identifiers only, never content. A write never fails because the bus is down:
 * an event JetStream did not store goes to an outbox collection and is retried by the sweeper
 * (the event id is the JetStream message id, so a retry is stored once).
 */
import { Binary } from 'mongodb';
import { MemoryItemKind, MemoryWrite } from '@tollgate/contracts/events/v1';
import {
  EventTypes,
  decodeEnvelope,
  encodeEnvelope,
  envelope,
  publishEnvelope,
} from '@tollgate/kit';
import type { EventPublisher, Logger } from '@tollgate/kit';
import type { MemoryStore } from './store/collections.js';
import { formatActor } from './types.js';
import type { Actor, Owner } from './types.js';

export type ItemKind = 'session' | 'preference' | 'candidate' | 'saved_query' | 'skill';
export type WriteKind =
  'created' | 'updated' | 'proposed' | 'confirmed' | 'approved' | 'rejected' | 'deleted';

/** One memory write to announce. */
export interface MemoryWriteNotice {
  owner: Owner;
  kind: ItemKind;
  id: string;
  /** Session version or capability revision; 0 when not versioned. */
  version: number;
  write: WriteKind;
  sessionId?: string;
  writtenBy: Actor;
}

const ITEM_KINDS: Record<ItemKind, MemoryItemKind> = {
  session: MemoryItemKind.SESSION,
  preference: MemoryItemKind.PREFERENCE,
  candidate: MemoryItemKind.CANDIDATE,
  saved_query: MemoryItemKind.SAVED_QUERY,
  skill: MemoryItemKind.SKILL,
};

const WRITES: Record<WriteKind, MemoryWrite> = {
  created: MemoryWrite.CREATED,
  updated: MemoryWrite.UPDATED,
  proposed: MemoryWrite.PROPOSED,
  confirmed: MemoryWrite.CONFIRMED,
  approved: MemoryWrite.APPROVED,
  rejected: MemoryWrite.REJECTED,
  deleted: MemoryWrite.DELETED,
};

/** Where announcements go; the service uses the bus, tests may collect them. */
export interface Announcer {
  announce(notice: MemoryWriteNotice): Promise<void>;
}

/** Announces on JetStream, falling back to the outbox. */
export class BusAnnouncer implements Announcer {
  readonly #publisher: EventPublisher;
  readonly #store: MemoryStore;
  readonly #logger: Logger;

  constructor(deps: { publisher: EventPublisher; store: MemoryStore; logger: Logger }) {
    this.#publisher = deps.publisher;
    this.#store = deps.store;
    this.#logger = deps.logger;
  }

  async announce(notice: MemoryWriteNotice): Promise<void> {
    const event = envelope(EventTypes.memoryWritten, notice.owner.tenant, {
      case: 'memoryWritten',
      value: {
        tenant: notice.owner.tenant,
        agent: notice.owner.agent,
        user: notice.owner.user,
        kind: ITEM_KINDS[notice.kind],
        id: notice.id,
        version: notice.version,
        write: WRITES[notice.write],
        sessionId: notice.sessionId ?? '',
        writtenBy: formatActor(notice.writtenBy),
      },
    });
    try {
      await publishEnvelope(this.#publisher, event);
    } catch (err) {
      this.#logger.warn(
        { eventId: event.eventId, err: { message: (err as Error).message } },
        'memory.written not stored by JetStream; kept in the outbox',
      );
      try {
        await this.#store.outbox.insertOne({
          _id: event.eventId,
          type: event.type,
          bytes: new Binary(encodeEnvelope(event)),
          createdAt: new Date(),
        });
      } catch (outboxErr) {
        this.#logger.error(
          { eventId: event.eventId, err: { message: (outboxErr as Error).message } },
          'memory.written lost: neither JetStream nor the outbox took it',
        );
      }
    }
  }

  /** Retries outbox events, oldest first; returns how many JetStream stored. */
  async relayOutbox(limit = 100): Promise<number> {
    const pending = await this.#store.outbox.find({}).sort({ createdAt: 1 }).limit(limit).toArray();
    let sent = 0;
    for (const doc of pending) {
      const bytes = doc['bytes'];
      if (!(bytes instanceof Binary) || doc['type'] !== EventTypes.memoryWritten) {
        this.#logger.error({ eventId: doc._id }, 'malformed outbox entry dropped');
        await this.#store.outbox.deleteOne({ _id: doc._id });
        continue;
      }
      try {
        const tenant = decodeEnvelope(bytes.buffer).tenant;
        await this.#publisher.publish(EventTypes.memoryWritten, doc._id, bytes.buffer, tenant);
      } catch {
        return sent;
      }
      await this.#store.outbox.deleteOne({ _id: doc._id });
      sent++;
    }
    return sent;
  }
}
