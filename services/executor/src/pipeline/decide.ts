import { TollgateError, narrowToDeclared } from '@tollgate/core';
import type { Operation, PermissionSet, Principal, PublishedResource } from '@tollgate/core';
import type { LocalDecider } from '@tollgate/policy';
import type { PolicyDeciders } from '../state/deciders.js';
import type {
  OfferedPermissions,
  PolicyDecision,
  Principal as PolicyPrincipal,
} from '@tollgate/policy';

/** The policy's answer for one call and what the principal may do on the resource. */
export interface Verdict {
  decision: PolicyDecision;
  /** Offered permissions, narrowed to the fields the current descriptor declares. */
  permissions: PermissionSet;
  /** The tenant's decider; absent when the tenant has no bundle. */
  decider: LocalDecider | undefined;
}

/**
 * Decides a call locally. The decider only knows the principal attributes it was built for,
 * so the token id is left out. The caller's address is known only when a trusted front end
 * (the MCP gateway) put it in the token it minted (`Principal.sourceIp`); otherwise — an agent
 * on NATS — IP-restricted grants do not allow. The `limit` a search asks for is part of the decision when it is within
 * the offered cap (a larger one fails validation with the cap named, which a model can fix).
 */
export function decideCall(
  deciders: PolicyDeciders,
  principal: Principal,
  resource: PublishedResource,
  operation: Operation,
  args: Record<string, unknown>,
  now: number,
): Verdict {
  const decider = deciders.forCall(principal.tenant, principal.environment);
  const who = policyPrincipal(principal);
  if (decider === undefined) {
    const decision: PolicyDecision = {
      decision: 'deny',
      policyIds: [],
      reason: 'no policy is loaded for this tenant',
      errorCode: 'POLICY_UNAVAILABLE',
    };
    return { decision, permissions: noPermissions(), decider: undefined };
  }
  const offered = decider.permissionSet(who, resource.name);
  const permissions = narrowToDescriptor(offered, resource);
  const limit = args.limit;
  const withinCap =
    typeof limit === 'number' &&
    Number.isSafeInteger(limit) &&
    limit >= 1 &&
    limit <= permissions.limitCap;
  const decision = decider.decide(who, operation, resource.name, {
    now,
    ...(withinCap ? { limit } : {}),
    ...(principal.sourceIp !== undefined ? { sourceIp: principal.sourceIp } : {}),
  });
  return { decision, permissions, decider };
}

/** The principal as the decider takes it: the attributes it knows, nothing else. */
export function policyPrincipal(principal: Principal): PolicyPrincipal {
  return {
    tenant: principal.tenant,
    agent: principal.agent,
    environment: principal.environment,
    ...(principal.user !== undefined ? { user: principal.user } : {}),
  };
}

/** The error an agent sees for a denial: the rule's kind in words, never its text. */
export function denialError(decision: PolicyDecision): TollgateError {
  const code = decision.errorCode ?? 'POLICY_DENIED';
  const message =
    code === 'POLICY_UNAVAILABLE'
      ? `Denied: policy could not be evaluated (${decision.reason}); nothing was run.`
      : `Denied by policy: ${decision.reason}.`;
  return new TollgateError(code, message);
}

/**
 * The offered permissions without fields the descriptor no longer declares: a descriptor can
 * change before the tenant's bundle is recompiled, and a removed field must stop working at
 * once. Only ever narrows.
 */
function narrowToDescriptor(
  offered: OfferedPermissions,
  resource: PublishedResource,
): PermissionSet {
  let byResource = narrowed.get(offered);
  if (byResource === undefined) {
    byResource = new WeakMap();
    narrowed.set(offered, byResource);
  }
  const known = byResource.get(resource);
  if (known !== undefined) return known;
  const set = narrowToDeclared(offered, resource.descriptor);
  byResource.set(resource, set);
  return set;
}

/**
 * Narrowed sets by offered set (the decider keeps one per principal × resource until its
 * bundle changes) and resource version, so steady traffic reuses one object — and the tool
 * set compiled for it.
 */
const narrowed = new WeakMap<OfferedPermissions, WeakMap<PublishedResource, PermissionSet>>();

function noPermissions(): PermissionSet {
  return { operations: [], visibleFields: [], filterableFields: [], limitCap: 1 };
}
