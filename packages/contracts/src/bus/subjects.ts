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
  /**
   * Where an event of `tenant` is published: `tollgate.v1.evt.<area>.<name>.<tenant>`, so the bus
   * can give a tenant's subscribers its events and nothing else (DESIGN §14). An event of no
   * known tenant (a call refused before its token was read) goes to tenant `_`.
   */
  event(type: EventType, tenant: string): string {
    return `tollgate.v1.evt.${type}.${eventTenant(tenant)}`;
  },
  /** Every tenant's events of one type (a consumer's filter). */
  eventsOf(type: EventType): string {
    return `tollgate.v1.evt.${type}.*`;
  },
  allEvents: 'tollgate.v1.evt.>',
  /** Request/reply endpoints services expose to agents over NATS (e.g. listing tools). */
  service(service: string, method: string): string {
    return `tollgate.v1.svc.${token('service', service)}.${token('method', method)}`;
  },
} as const;

/** The subject token of an event's tenant: the tenant, or `_` when there is none. */
export function eventTenant(tenant: string): string {
  return tenant === '' ? '_' : token('tenant', tenant);
}

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
