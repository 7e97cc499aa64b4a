import type { Response } from '@cedar-policy/cedar-wasm/nodejs';
import type { CompiledPolicy, PolicyKind } from '../bundle/types.js';
import { matchesAction, parseActionPattern } from '../model/actions.js';
import { zoneKey } from '../model/clock.js';
import { inAnyRange, parseIpRange } from '../model/ip.js';
import type { IpRange } from '../model/ip.js';
import { inTimeWindow } from '../model/time-window.js';
import type { AgentView, LoadedBundle, ResourceView } from './loaded-bundle.js';
import type { DecisionRequest } from './request.js';
import type { PolicyDecision } from './types.js';

/** Which forbid speaks for a denial when several match: the most fundamental first. */
const DENY_PRIORITY: readonly PolicyKind[] = [
  'tenant',
  'environment',
  'readonly',
  'limit',
  'grant',
  'cedar',
  'field_roles',
  'field',
  'access',
];

/** Turns Cedar's answer into a decision with an agent-safe reason. */
export function interpretResponse(
  response: Response,
  loaded: LoadedBundle,
  request: DecisionRequest,
  agent: AgentView,
  resource: ResourceView,
): PolicyDecision {
  const bundleVersion = loaded.bundle.version;
  if (response.diagnostics.errors.length > 0) {
    return unavailable(
      'policy evaluation failed',
      bundleVersion,
      response.diagnostics.errors.map((e) => e.policyId),
    );
  }
  const determining = response.diagnostics.reason
    .map((id) => loaded.policies.get(id))
    .filter((p): p is CompiledPolicy => p !== undefined);
  const target = `${request.resource}.${request.action}`;

  if (response.decision === 'deny') {
    const forbids = determining
      .filter((p) => p.effect === 'deny')
      .sort(
        (a, b) =>
          DENY_PRIORITY.indexOf(a.kind) - DENY_PRIORITY.indexOf(b.kind) || (a.id < b.id ? -1 : 1),
      );
    const first = forbids[0];
    const reason = first
      ? forbidReason(first, request, resource)
      : noPermitReason(loaded, request, agent, resource);
    return {
      decision: 'deny',
      policyIds: forbids.map((p) => p.id),
      reason,
      errorCode: 'POLICY_DENIED',
      bundleVersion,
    };
  }

  const approvals = determining.filter((p) => p.effect === 'require_approval');
  if (approvals.length > 0) {
    return {
      decision: 'require_approval',
      policyIds: approvals.map((p) => p.id),
      reason: `${target} needs a human approval for this agent`,
      bundleVersion,
    };
  }
  const kinds = new Set(determining.map((p) => p.kind));
  const by = kinds.has('grant')
    ? 'a grant'
    : kinds.has('access')
      ? "the resource's allowed roles"
      : 'a Cedar policy';
  return {
    decision: 'allow',
    policyIds: determining.map((p) => p.id),
    reason: `${target} is allowed by ${by}`,
    bundleVersion,
  };
}

/** A decision the decider could not make: always a denial with POLICY_UNAVAILABLE. */
export function unavailable(
  reason: string,
  bundleVersion?: number,
  policyIds: string[] = [],
): PolicyDecision {
  return denial('POLICY_UNAVAILABLE', `policy unavailable: ${reason}`, bundleVersion, policyIds);
}

/** A denial decided before Cedar (malformed request, unknown agent or resource, other tenant). */
export function denied(
  reason: string,
  bundleVersion?: number,
  policyIds: string[] = [],
): PolicyDecision {
  return denial('POLICY_DENIED', reason, bundleVersion, policyIds);
}

function denial(
  errorCode: 'POLICY_UNAVAILABLE' | 'POLICY_DENIED',
  reason: string,
  bundleVersion: number | undefined,
  policyIds: string[],
): PolicyDecision {
  return {
    decision: 'deny',
    policyIds,
    reason,
    errorCode,
    ...(bundleVersion !== undefined ? { bundleVersion } : {}),
  };
}

function forbidReason(
  policy: CompiledPolicy,
  request: DecisionRequest,
  resource: ResourceView,
): string {
  switch (policy.kind) {
    case 'tenant':
      return 'principal and resource belong to different tenants';
    case 'environment':
      return "the caller's environment does not match the resource's environment";
    case 'readonly':
      return 'resource is read-only';
    case 'limit':
      return `requested limit ${String(request.limit)} exceeds the cap of ${resource.maxLimit}`;
    case 'grant': {
      const c = policy.grant?.conditions;
      if (c?.ipCidr) return 'denied by an IP restriction';
      if (c?.timeWindow) return 'denied by a time-window restriction';
      if (c?.environment) return 'denied by an environment restriction';
      return `${request.resource}.${request.action} is denied for this agent by a deny grant`;
    }
    case 'cedar':
      return 'denied by a Cedar policy rule';
    default:
      return 'denied by policy';
  }
}

/**
 * Nothing permitted. If a grant for this agent and action exists but its conditions failed,
 * name the condition; otherwise say no grant allows it.
 */
function noPermitReason(
  loaded: LoadedBundle,
  request: DecisionRequest,
  agent: AgentView,
  resource: ResourceView,
): string {
  const candidates = resource.policies.filter(
    (p) =>
      p.kind === 'grant' &&
      p.effect !== 'deny' &&
      p.grant !== undefined &&
      appliesToPrincipal(p.grant.principals, request.agent, agent.roles) &&
      p.grant.actions.some((a) => {
        const pattern = parseActionPattern(a);
        return (
          typeof pattern !== 'string' && matchesAction(pattern, request.resource, request.action)
        );
      }),
  );
  for (const candidate of candidates) {
    const failed = failedCondition(candidate, loaded, request, resource);
    if (failed) return failed;
  }
  return `no grant allows ${request.resource}.${request.action} for this agent`;
}

function failedCondition(
  policy: CompiledPolicy,
  loaded: LoadedBundle,
  request: DecisionRequest,
  resource: ResourceView,
): string | undefined {
  const c = policy.grant?.conditions;
  if (!c) return undefined;
  if (c.ipCidr) {
    if (request.sourceIp === undefined)
      return "denied by an IP restriction (the caller's IP is unknown)";
    const ranges = c.ipCidr.map(parseIpRange).filter((r): r is IpRange => typeof r !== 'string');
    if (!inAnyRange(request.sourceIp, ranges)) return 'denied by an IP restriction';
  }
  if (c.timeWindow) {
    const minute = loaded.clock.read(request.now)[zoneKey(c.timeWindow.zone)];
    if (minute === undefined || !inTimeWindow(c.timeWindow, minute))
      return 'outside the time window a grant allows';
  }
  if (c.environment && !c.environment.includes(resource.environment))
    return 'denied by an environment restriction';
  return undefined;
}

/** Whether a grant's principal selector covers an agent with these (bundle) roles. */
export function appliesToPrincipal(
  principals: { roles: string[]; agents: string[] },
  agent: string,
  roles: string[],
): boolean {
  return principals.agents.includes(agent) || principals.roles.some((r) => roles.includes(r));
}
