/**
 * When a resource, a policy or a saved query changes, or an executor withdraws a tool, every principal's tool list may change:
 * cached listings are dropped and clients are told (`notifications/tools/list_changed` on open
 * streams). Follows the change events on core NATS, so every gateway instance hears them.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { EventTypes, subjects } from '@tollgate/kit';

/** The events after which a tool list may differ. */
export const TOOL_CHANGING_EVENTS = [
  EventTypes.resourceChanged,
  EventTypes.policyChanged,
  EventTypes.memoryWritten,
  EventTypes.toolWithdrawn,
] as const;

/**
 * Calls `onChange` (at most once per `debounceMs`, trailing) after any tool-changing event.
 * Returns a function that stops following.
 */
export function followToolChanges(
  nc: NatsConnection,
  onChange: () => void,
  debounceMs = 200,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      onChange();
    }, debounceMs);
  };
  const subs: Subscription[] = TOOL_CHANGING_EVENTS.map((type) =>
    nc.subscribe(subjects.eventsOf(type), {
      callback: (err) => {
        if (err === null) fire();
      },
    }),
  );
  return () => {
    clearTimeout(timer);
    for (const sub of subs) sub.unsubscribe();
  };
}
