/** Live updates: one EventSource (the server's feed of this tenant's events) shared by every page. */
import { useEffect, useRef } from 'react';

/** One event as the server summarizes it. */
export interface LiveEvent {
  id: string;
  type: string;
  occurredAt: string;
  traceId: string;
  callId?: string;
  sessionId?: string;
  agent?: string;
  user?: string;
  tool?: string;
  resource?: string;
  status?: string;
  errorCode?: string;
  latencyMs?: number;
  approvalId?: string;
  approvalStatus?: string;
  name?: string;
  version?: number;
}

const TYPES = [
  'call.completed',
  'call.denied',
  'approval.requested',
  'approval.decided',
  'resource.changed',
  'policy.changed',
  'memory.written',
  'tools.listed',
];

type Listener = (event: LiveEvent) => void;
const listeners = new Set<Listener>();
let source: EventSource | undefined;

function ensureSource(): void {
  if (source !== undefined) return;
  source = new EventSource('/api/events');
  for (const type of TYPES) {
    source.addEventListener(type, (e) => {
      const event = JSON.parse((e as MessageEvent<string>).data) as LiveEvent;
      for (const l of listeners) l(event);
    });
  }
}

/** Calls `onEvent` for every live event of the given types while the component is mounted. */
export function useLiveEvents(types: string[] | 'all', onEvent: Listener): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const key = types === 'all' ? 'all' : types.join(',');
  useEffect(() => {
    ensureSource();
    const wanted = key === 'all' ? undefined : new Set(key.split(','));
    const listener: Listener = (e) => {
      if (wanted === undefined || wanted.has(e.type)) handler.current(e);
    };
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, [key]);
}
