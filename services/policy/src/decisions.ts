import type { Operation, Principal } from '@tollgate/core';
import type {
  CallContext,
  DecisionTrace,
  OfferedPermissions,
  PolicyDecision,
  Principal as DecisionPrincipal,
} from '@tollgate/policy';
import { tenantOf } from '@tollgate/kit';
import type { TenantDeciders } from './bundles/deciders.js';
import { ROLES } from './declarations/access.js';
import type { AccessControl } from './declarations/access.js';

/** A decision request, its principal already resolved within the caller's tenant. */
export interface DecisionQuery {
  principal: DecisionPrincipal & { environment: string };
  action: Operation;
  resource: string;
  context: CallContext;
}

/**
 * Decide, Explain and permission sets over the tenant's bundle as loaded from KV (the same
 * bundle and `LocalDecider` executors use, so the answers agree). A caller may ask about itself;
 * asking about another principal of the tenant takes `admin`, Explain takes `admin` or
 * `approver`. Evaluation never throws: no bundle, a corrupt one or an evaluation error is a
 * DENY with POLICY_UNAVAILABLE.
 */
export class Decisions {
  readonly #deciders: TenantDeciders;
  readonly #access: AccessControl;

  constructor(deps: { deciders: TenantDeciders; access: AccessControl }) {
    this.#deciders = deps.deciders;
    this.#access = deps.access;
  }

  async decide(caller: Principal, query: DecisionQuery): Promise<PolicyDecision> {
    await this.#mayAskAbout(caller, query.principal, 'ask for decisions of other agents');
    return this.#deciders
      .decider(query.principal.tenant, query.principal.environment)
      .decide(query.principal, query.action, query.resource, query.context);
  }

  async explain(
    caller: Principal,
    query: DecisionQuery,
  ): Promise<{ trace: DecisionTrace; permissions: OfferedPermissions }> {
    tenantOf(caller, query.principal.tenant);
    await this.#access.require(caller, [ROLES.admin, ROLES.approver], 'explain decisions');
    const decider = this.#deciders.decider(query.principal.tenant, query.principal.environment);
    return {
      trace: decider.explain(query.principal, query.action, query.resource, query.context),
      permissions: decider.permissionSet(query.principal, query.resource),
    };
  }

  async permissionSet(
    caller: Principal,
    principal: DecisionPrincipal & { environment: string },
    resource: string,
  ): Promise<OfferedPermissions> {
    await this.#mayAskAbout(caller, principal, 'read permission sets of other agents');
    return this.#deciders
      .decider(principal.tenant, principal.environment)
      .permissionSet(principal, resource);
  }

  async #mayAskAbout(caller: Principal, about: DecisionPrincipal, doing: string): Promise<void> {
    tenantOf(caller, about.tenant);
    if (about.agent === caller.agent) return;
    await this.#access.require(caller, [ROLES.admin], doing);
  }
}
