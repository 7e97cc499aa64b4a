/**
 * Every NATS subject, stream and bucket name Tollgate uses. Services build subjects here and
 * nowhere else (DESIGN §4–§5).
 */

const TOKEN = /^[A-Za-z0-9_-]+$/;

function token(kind: string, value: string): string {
  if (!TOKEN.test(value))
    throw new Error(`invalid ${kind} for a NATS subject: ${JSON.stringify(value)}`);
  return value;
}

export const EVENTS_STREAM = 'TOLLGATE_EVENTS';

/** Event areas and names of DESIGN §5. */
export const EventTypes = {
  resourceChanged: 'resource.changed',
  policyChanged: 'policy.changed',
  callCompleted: 'call.completed',
  callDenied: 'call.denied',
  approvalRequested: 'approval.requested',
  approvalDecided: 'approval.decided',
  memoryWritten: 'memory.written',
  /** The synthesizer handed tools to an agent (what it was offered, for replay). */
  toolsListed: 'tools.listed',
} as const;
export type EventType = (typeof EventTypes)[keyof typeof EventTypes];

export const subjects = {
  /** Tool calls for one resource; executors of `kind` listen in a queue group. */
  call(kind: string, resource: string): string {
    return `tollgate.v1.call.${token('kind', kind)}.${token('resource', resource)}`;
  },
  /** Everything an executor of `kind` serves. */
  callsOfKind(kind: string): string {
    return `tollgate.v1.call.${token('kind', kind)}.*`;
  },
  /** Queue group name for executors of one kind. */
  executorQueue(kind: string): string {
    return `executor-${token('kind', kind)}`;
  },
  event(type: EventType): string {
    return `tollgate.v1.evt.${type}`;
  },
  allEvents: 'tollgate.v1.evt.>',
  /** Request/reply endpoints services expose to agents over NATS (e.g. listing tools). */
  service(service: string, method: string): string {
    return `tollgate.v1.svc.${token('service', service)}.${token('method', method)}`;
  },
} as const;

export const buckets = {
  /** Current resource versions, key `<tenant>.<environment>.<name>`. */
  resources: 'tollgate_resources',
  /** Compiled policy bundles, key `<tenant>`. */
  policyBundles: 'tollgate_policy_bundles',
  /** Idempotency records of write calls (TTL ≥ 24 h). */
  idempotency: 'tollgate_idempotency',
  /** Shared rate-limit counters. */
  rateLimits: 'tollgate_rate_limits',
  /** Calls parked for approval, key `<call id>` (TTL: approval expiry + margin). */
  parkedCalls: 'tollgate_parked_calls',
  /** Results of parked and accepted calls for polling, key `<call id>` (TTL 24 h). */
  callResults: 'tollgate_call_results',
  /**
   * Approved saved queries and active preferred fields, projected by the memory service
   * (keys in core's memory/published.ts).
   */
  memory: 'tollgate_memory',
} as const;

export function resourceKey(tenant: string, environment: string, name: string): string {
  return `${token('tenant', tenant)}.${token('environment', environment)}.${token('name', name)}`;
}
