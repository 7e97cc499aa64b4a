import type { AgentDescriptor, Principal } from '@tollgate/core';
import { forbidden } from '../errors.js';
import type { AgentRecord, DeclarationStore } from '../store/declarations.js';

/**
 * Roles the policy service itself honours, held by a caller's Agent declaration:
 * - `admin`: apply and delete Agents and Policies, read them, Explain, and Decide or read
 *   permission sets for other principals of the tenant;
 * - `approver`: list, read and decide approvals (never one's own), read declarations, Explain;
 * - `viewer`: list and read approvals, agents and policies, and nothing else (read-only
 *   operators, e.g. the web console's viewers).
 */
export const ROLES = { admin: 'admin', approver: 'approver', viewer: 'viewer' } as const;
export type ServiceRole = (typeof ROLES)[keyof typeof ROLES];

/**
 * Who may do what, from the caller's current Agent declaration in its tenant (the token says
 * who the caller is; the declaration says what it may do). A caller without a live Agent
 * declaration holds no roles.
 *
 * Bootstrap: while a tenant has no Agent at all, ApplyAgent is allowed to a principal of that
 * tenant only for its own Agent with the `admin` role — so the first declaration always leaves
 * the tenant with an administrator, and nobody can lock it out by declaring someone else first.
 */
export class AccessControl {
  readonly #agents: DeclarationStore<'Agent'>;

  constructor(agents: DeclarationStore<'Agent'>) {
    this.#agents = agents;
  }

  /** The roles of the caller's live Agent declaration as of the last completed change (empty when none). */
  async rolesOf(principal: Principal): Promise<string[]> {
    return rolesIn([await this.#agents.head(principal.tenant, principal.agent)], principal);
  }

  /** Throws POLICY_DENIED unless the caller holds one of `roles`; `doing` completes "may not …". */
  async require(principal: Principal, roles: ServiceRole[], doing: string): Promise<void> {
    requireRoles(principal, await this.rolesOf(principal), roles, doing);
  }

  /** Whether the caller holds one of `roles`. */
  async holds(principal: Principal, roles: ServiceRole[]): Promise<boolean> {
    const held = await this.rolesOf(principal);
    return roles.some((r) => held.includes(r));
  }
}

/** The roles of the caller's live declaration among `agents` (records of its tenant). */
export function rolesIn(agents: (AgentRecord | undefined)[], principal: Principal): string[] {
  const record = agents.find((a) => a?.tenant === principal.tenant && a.name === principal.agent);
  return record === undefined || record.deleted ? [] : record.descriptor.spec.roles;
}

/** Throws POLICY_DENIED unless `held` includes one of `roles`. */
export function requireRoles(
  principal: Principal,
  held: string[],
  roles: ServiceRole[],
  doing: string,
): void {
  if (roles.some((r) => held.includes(r))) return;
  throw forbidden(
    `"${principal.agent}" may not ${doing}: ${
      held.length === 0
        ? `it is not a declared Agent of tenant "${principal.tenant}"`
        : `its Agent in tenant "${principal.tenant}" holds none of the roles ${roles.join(', ')}`
    }.`,
  );
}

/** ApplyAgent, given every Agent of the tenant: an admin, or the bootstrap declaration of an empty tenant. */
export function requireMayApplyAgent(
  principal: Principal,
  agents: AgentRecord[],
  descriptor: AgentDescriptor,
): void {
  if (agents.length > 0) {
    requireRoles(principal, rolesIn(agents, principal), [ROLES.admin], 'apply agents');
    return;
  }
  const self = descriptor.metadata.name === principal.agent;
  if (self && descriptor.spec.roles.includes(ROLES.admin)) return;
  throw forbidden(
    `Tenant "${principal.tenant}" has no agents yet: the first Agent applied must declare the caller itself ("${principal.agent}") with the ${ROLES.admin} role.`,
  );
}
