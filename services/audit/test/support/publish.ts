import type { NatsConnection } from '@nats-io/transport-node';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { EventPublisher, encodeEnvelope } from '@tollgate/kit';
import type { EventType } from '@tollgate/kit';

/**
 * Publishes events with a few in flight at once, retrying each until JetStream stores it (so
 * a NATS restart in the middle only delays the burst). The event id is the JetStream message
 * id, so a retry of a stored event is not stored again.
 */
export async function publishAll(
  nc: NatsConnection,
  events: readonly EventEnvelope[],
  options: { concurrency?: number; onPublished?: (count: number) => void } = {},
): Promise<void> {
  const publisher = new EventPublisher(nc);
  let next = 0;
  let published = 0;
  const worker = async () => {
    while (next < events.length) {
      const event = events[next++]!;
      for (let attempt = 0; ; attempt++) {
        try {
          await publisher.publish(
            event.type as EventType,
            event.eventId,
            encodeEnvelope(event),
            event.tenant,
            2_000,
          );
          break;
        } catch (err) {
          if (attempt > 200) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      options.onPublished?.(++published);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 32 }, worker));
}
