/**
 * One local policy decider per tenant, loaded from the policy service's `tollgate_policy_bundles`
 * KV projection. Fails closed: a tenant without a bundle, or whose bundle could not be loaded,
 * is offered nothing.
 */
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import { LocalDecider, agentRoles, parseBundle } from '@tollgate/policy';
import type { OfferedPermissions } from '@tollgate/policy';

/** What applying one KV value did. */
export type BundleChange =
  | { kind: 'loaded'; tenant: string; version: number; hash: string }
  | { kind: 'kept'; tenant: string; reason: string }
  | { kind: 'failed'; tenant: string; reason: string }
  | { kind: 'removed'; tenant: string }
  /** Held, to be loaded when the tenant is first asked for (see PolicyBundles). */
  | { kind: 'deferred'; tenant: string };

/** A principal the tenant's bundle knows: its roles and what it may do per resource. */
export interface PrincipalAccess {
  /** Roles the bundle gives the agent, sorted; never taken from a token or request. */
  roles: string[];
  /** The bundle version deciding. */
  bundleVersion: number;
  /** What the principal may do on the named resource of its tenant. */
  permissions(resource: string): OfferedPermissions;
}

interface Loaded {
  decider: LocalDecider;
  /** Set once a bundle loaded; roles by agent. */
  roles?: Map<string, string[]>;
  version?: number;
  hash?: string;
  failed?: string;
}

/**
 * The tenants' deciders. A bundle of a tenant nobody has asked for yet is only held, and
 * compiled on first use: a bucket of thousands of tenants costs nothing at startup, and a
 * tenant whose decider is loaded is hot-reloaded at once, as before.
 */
export class PolicyBundles {
  readonly #tenants = new Map<string, Loaded>();
  readonly #pending = new Map<string, Uint8Array>();

  /** Applies the KV value stored under `tenant`, or its deletion (`undefined`). */
  apply(tenant: string, value: Uint8Array | undefined): BundleChange {
    if (value === undefined) {
      this.#tenants.delete(tenant);
      this.#pending.delete(tenant);
      return { kind: 'removed', tenant };
    }
    if (!this.#tenants.has(tenant)) {
      this.#pending.set(tenant, value);
      return { kind: 'deferred', tenant };
    }
    return this.#load(tenant, value);
  }

  /** Compiles a held bundle, if the tenant has one waiting. */
  #settle(tenant: string): void {
    const value = this.#pending.get(tenant);
    if (value === undefined) return;
    this.#pending.delete(tenant);
    this.#load(tenant, value);
  }

  #load(tenant: string, value: Uint8Array): BundleChange {
    const parsed = parseBundle(value);
    if (!parsed.ok) return this.#fail(tenant, parsed.reason);
    const bundle = parsed.bundle;
    if (bundle.tenant !== tenant) {
      return this.#fail(
        tenant,
        `the bundle stored under "${tenant}" is for tenant "${bundle.tenant}"`,
      );
    }
    let held = this.#tenants.get(tenant);
    if (held === undefined || held.failed !== undefined) {
      held = { decider: new LocalDecider() };
      this.#tenants.set(tenant, held);
    }
    const result = held.decider.load(bundle);
    if (!result.ok) {
      if (result.kept) return { kind: 'kept', tenant, reason: result.reason };
      return this.#fail(tenant, result.reason);
    }
    held.roles = agentRoles(bundle);
    held.version = result.version;
    held.hash = result.hash;
    return { kind: 'loaded', tenant, version: result.version, hash: result.hash };
  }

  /** Hash of the bundle a tenant's decider holds. */
  hash(tenant: string): string | undefined {
    this.#settle(tenant);
    return this.#tenants.get(tenant)?.hash;
  }

  /**
   * What `principal` may do, per its tenant's bundle. POLICY_UNAVAILABLE when the tenant has no
   * usable bundle; POLICY_DENIED when the bundle does not declare the agent.
   */
  access(principal: Principal): PrincipalAccess {
    const { tenant, agent } = principal;
    this.#settle(tenant);
    const held = this.#tenants.get(tenant);
    if (held === undefined) {
      throw new TollgateError(
        'POLICY_UNAVAILABLE',
        `No policy bundle has been published for tenant "${tenant}"; no tools are offered until one is.`,
      );
    }
    if (held.failed !== undefined || held.roles === undefined || held.version === undefined) {
      throw new TollgateError(
        'POLICY_UNAVAILABLE',
        `The policy bundle of tenant "${tenant}" could not be loaded; no tools are offered until a valid one is published.`,
      );
    }
    const roles = held.roles.get(agent);
    if (roles === undefined) {
      throw new TollgateError(
        'POLICY_DENIED',
        `Agent "${agent}" is not declared in tenant "${tenant}"; declare it (kind: Agent) before it can be offered tools.`,
      );
    }
    const decider = held.decider;
    const who = {
      tenant,
      agent,
      environment: principal.environment,
      ...(principal.user !== undefined ? { user: principal.user } : {}),
    };
    return {
      roles,
      bundleVersion: held.version,
      permissions: (resource) => decider.permissionSet(who, resource),
    };
  }

  #fail(tenant: string, reason: string): BundleChange {
    this.#tenants.set(tenant, { decider: new LocalDecider(), failed: reason });
    return { kind: 'failed', tenant, reason };
  }
}
