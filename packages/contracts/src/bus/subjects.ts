/**
 * The NATS contract: every subject, header, stream and bucket name Tollgate uses. Services
 * (through kit) and agents (through the SDK) build subjects here and nowhere else.
 */

const TOKEN = /^[A-Za-z0-9_-]+$/;

function token(kind: string, value: string): string {
  if (!TOKEN.test(value))
    throw new Error(`invalid ${kind} for a NATS subject: ${JSON.stringify(value)}`);
  return value;
}

export const EVENTS_STREAM = 'TOLLGATE_EVENTS';

/** Event types: `<area>.<what happened>`; each is published on `subjects.event(type, tenant)`. */
export const EventTypes = {
  resourceChanged: 'resource.changed',
  policyChanged: 'policy.changed',
  /** Write-ahead: a call is about to reach its upstream (paired with its `call.completed`). */
  callStarted: 'call.started',
  callCompleted: 'call.completed',
  callDenied: 'call.denied',
  approvalRequested: 'approval.requested',
  approvalDecided: 'approval.decided',
  memoryWritten: 'memory.written',
  /** The synthesizer handed tools to an agent (what it was offered, for replay). */
  toolsListed: 'tools.listed',
  /** An executor withdrew an operation whose pinned definition the live system no longer matches. */
  toolWithdrawn: 'tool.withdrawn',
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
   * can give a tenant's subscribers its events and nothing else (docs/bus.md). An event of no
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
  /** The synthesizer's tool listing for the calling principal. */
  listTools: 'tollgate.v1.svc.synthesizer.list_tools',
  /** One tool by name, for the calling principal. */
  getTool: 'tollgate.v1.svc.synthesizer.get_tool',
  /** The stored result of a parked or accepted call, for the principal that made it. */
  callResult: 'tollgate.v1.svc.executor.call_result',
} as const;

/** A call subject agents may publish to: `tollgate.v1.call.<kind>.<resource>`, no wildcards. */
const CALL_SUBJECT = /^tollgate\.v1\.call\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export function isCallSubject(value: string): boolean {
  return CALL_SUBJECT.test(value);
}

/** Header carrying the principal token (`Bearer <token>`) on requests. */
export const AUTHORIZATION_HEADER = 'authorization';
/** Header of a failed request's reply: JSON `{ code, category, message, details }`. */
export const ERROR_HEADER = 'tollgate-error';

/** The subject token of an event's tenant: the tenant, or `_` when there is none. */
export function eventTenant(tenant: string): string {
  return tenant === '' ? '_' : token('tenant', tenant);
}

export const buckets = {
  /** Current resource versions, key `<tenant>.<environment>.<name>`. */
  resources: 'tollgate_resources',
  /**
   * Compiled policy bundles: key `<tenant>.<environment>` holds the bundle of the tenant's
   * resources in that environment, key `<tenant>` the tenant's bundle without resources (its
   * agents and policies: roles, and the answer for an environment with no resources). See
   * `policyBundleKey`.
   */
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
  /**
   * Operations an executor withdrew because the live system no longer matches their pin, key
   * `<tenant>.<environment>.<name>.<operation>` (see `withdrawalKey`): a restarted synthesizer
   * still offers them to nobody. Written by executors, read by synthesizers.
   */
  withdrawals: 'tollgate_withdrawals',
} as const;

/**
 * The key of a tenant's policy bundle for `environment`, or of its bundle without resources
 * when `environment` is undefined. A resource's identity is (tenant, environment, name), so each
 * environment has its own bundle, in which a resource name stands for one resource.
 */
export function policyBundleKey(tenant: string, environment?: string): string {
  return environment === undefined
    ? token('tenant', tenant)
    : `${token('tenant', tenant)}.${token('environment', environment)}`;
}

/**
 * The keys a decision in `environment` reads, in order: the environment's own bundle, then the
 * tenant's bundle without resources (an environment with no resources, or a name that cannot be
 * a key, has no bundle of its own).
 */
export function policyBundleLookup(tenant: string, environment: string): string[] {
  const base = token('tenant', tenant);
  return TOKEN.test(environment) ? [`${base}.${environment}`, base] : [base];
}

/** The tenant and environment a policy bundle key names; undefined for a key of another shape. */
export function parsePolicyBundleKey(
  key: string,
): { tenant: string; environment?: string } | undefined {
  const parts = key.split('.');
  if (parts.length > 2 || parts.some((p) => !TOKEN.test(p))) return undefined;
  const [tenant, environment] = parts as [string, string | undefined];
  return environment === undefined ? { tenant } : { tenant, environment };
}

export function resourceKey(tenant: string, environment: string, name: string): string {
  return `${token('tenant', tenant)}.${token('environment', environment)}.${token('name', name)}`;
}

/** The key of a withdrawn operation in the withdrawals bucket: its resource's key, then it. */
export function withdrawalKey(
  tenant: string,
  environment: string,
  name: string,
  operation: string,
): string {
  return `${resourceKey(tenant, environment, name)}.${token('operation', operation)}`;
}

/** The resource key and operation of a withdrawals-bucket key; undefined for another shape. */
export function parseWithdrawalKey(
  key: string,
): { resource: string; operation: string } | undefined {
  const parts = key.split('.');
  if (parts.length !== 4 || !parts.every((part) => TOKEN.test(part))) return undefined;
  return { resource: parts.slice(0, 3).join('.'), operation: parts[3]! };
}
