/**
 * Who a listing is for. Normally the caller (from its verified token). A control-plane caller
 * may act for another principal of its own tenant only when the tenant's bundle gives it the
 * `operator` or `admin` role; roles never come from a token or a request.
 */
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import { tenantOf } from '@tollgate/kit';
import type { PolicyBundles } from './bundles.js';
import type { RequestedPrincipal } from './requests.js';

/** Roles that may list tools on another principal's behalf. */
export const ACT_FOR_ROLES: readonly string[] = ['operator', 'admin'];

export interface Acting {
  principal: Principal;
  /** True when the caller acts for someone else. */
  actingFor: boolean;
}

export function actingPrincipal(
  caller: Principal,
  requested: RequestedPrincipal | undefined,
  policies: PolicyBundles,
): Acting {
  if (requested === undefined) return { principal: caller, actingFor: false };
  const tenant = tenantOf(caller, requested.tenant);
  const environment = requested.environment || caller.environment;
  const principal: Principal = {
    tenant,
    agent: requested.agent,
    environment,
    ...(requested.user !== undefined ? { user: requested.user } : {}),
    ...(caller.tokenId !== undefined ? { tokenId: caller.tokenId } : {}),
  };
  if (
    principal.agent === caller.agent &&
    principal.environment === caller.environment &&
    principal.user === caller.user
  ) {
    return { principal: caller, actingFor: false };
  }
  const roles = policies.access(caller).roles;
  if (!roles.some((role) => ACT_FOR_ROLES.includes(role))) {
    throw new TollgateError(
      'POLICY_DENIED',
      `Agent "${caller.agent}" may not list tools for another principal: that needs the ${ACT_FOR_ROLES.join(' or ')} role.`,
    );
  }
  return { principal, actingFor: true };
}
