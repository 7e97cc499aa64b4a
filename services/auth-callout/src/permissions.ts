import { agentInboxPrefix } from '@tollgate/core';
import type { Principal } from '@tollgate/core';

/** What a NATS user may publish and subscribe to (allow lists; everything else is denied). */
export interface BusPermissions {
  publish: string[];
  subscribe: string[];
}

/**
 * The subjects an agent publishes to — tool calls, listing and fetching tools, polling a
 * parked call — and nothing else: no JetStream API, no KV bucket, no event subject, no other
 * inbox. The executor and the synthesizer still verify the token on every request.
 */
export const AGENT_PUBLISH = [
  'tollgate.v1.call.*.*',
  'tollgate.v1.svc.synthesizer.list_tools',
  'tollgate.v1.svc.synthesizer.get_tool',
  'tollgate.v1.svc.executor.call_result',
] as const;

/** An agent: its calls out, and only its own inbox (replies and completion notices) in. */
export function agentPermissions(principal: Principal): BusPermissions {
  return { publish: [...AGENT_PUBLISH], subscribe: [`${agentInboxPrefix(principal)}.>`] };
}

/**
 * An event subscriber (a token for the `tollgate-events` audience): its own tenant's
 * `call.completed` events, read-only — it may publish nothing at all.
 */
export function subscriberPermissions(principal: Principal): BusPermissions {
  return { publish: [], subscribe: [`tollgate.v1.evt.call.completed.${principal.tenant}`] };
}
