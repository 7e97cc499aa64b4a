/**
 * One local policy decider per bundle key of the policy service's `tollgate_policy_bundles` KV
 * projection (`<tenant>.<environment>`, and `<tenant>` for the tenant's bundle without
 * resources): a principal is offered what its environment's bundle allows, or the bundle
 * without resources when the environment has none. Fails closed: a tenant without a bundle, or
 * whose bundle could not be loaded, is offered nothing.
 */
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import { parsePolicyBundleKey, policyBundleKey, policyBundleLookup } from '@tollgate/kit';
import { LocalDecider, agentRoles, parseBundle } from '@tollgate/policy';
import type { OfferedPermissions } from '@tollgate/policy';

/** What applying one KV value did (`key`: the bundle key it was stored under). */
export type BundleChange =
  | { kind: 'loaded'; key: string; version: number; hash: string }
  | { kind: 'kept'; key: string; reason: string }
  | { kind: 'failed'; key: string; reason: string }
  | { kind: 'removed'; key: string }
  /** Held, to be loaded when the key is first asked for (see PolicyBundles). */
  | { kind: 'deferred'; key: string };

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
 * The deciders, by bundle key. A bundle nobody has asked for yet is only held, and compiled on
 * first use: a bucket of thousands of tenants costs nothing at startup, and a key whose decider
 * is loaded is hot-reloaded at once, as before.
 */
export class PolicyBundles {
  readonly #keys = new Map<string, Loaded>();
  readonly #pending = new Map<string, Uint8Array>();

  /** Applies the KV value stored under `key`, or its deletion (`undefined`). */
  apply(key: string, value: Uint8Array | undefined): BundleChange {
    if (value === undefined) {
      this.#keys.delete(key);
      this.#pending.delete(key);
      return { kind: 'removed', key };
    }
    if (!this.#keys.has(key)) {
      this.#pending.set(key, value);
      return { kind: 'deferred', key };
    }
    return this.#load(key, value);
  }

  /** Compiles a held bundle, if the key has one waiting. */
  #settle(key: string): void {
    const value = this.#pending.get(key);
    if (value === undefined) return;
    this.#pending.delete(key);
    this.#load(key, value);
  }

  #load(key: string, value: Uint8Array): BundleChange {
    const parsed = parseBundle(value);
    if (!parsed.ok) return this.#fail(key, parsed.reason);
    const bundle = parsed.bundle;
    if (bundle.tenant !== parsePolicyBundleKey(key)?.tenant) {
      return this.#fail(key, `the bundle stored under "${key}" is for tenant "${bundle.tenant}"`);
    }
    let held = this.#keys.get(key);
    if (held === undefined || held.failed !== undefined) {
      held = { decider: new LocalDecider() };
      this.#keys.set(key, held);
    }
    const result = held.decider.load(bundle);
    if (!result.ok) {
      if (result.kept) return { kind: 'kept', key, reason: result.reason };
      return this.#fail(key, result.reason);
    }
    held.roles = agentRoles(bundle);
    held.version = result.version;
    held.hash = result.hash;
    return { kind: 'loaded', key, version: result.version, hash: result.hash };
  }

  /** Hash of the bundle held under `key` (default: the tenant's bundle without resources). */
  hash(tenant: string, environment?: string): string | undefined {
    const key = policyBundleKey(tenant, environment);
    this.#settle(key);
    return this.#keys.get(key)?.hash;
  }

  /** The held bundle deciding for `principal`'s environment. */
  #deciding(tenant: string, environment: string): Loaded | undefined {
    for (const key of policyBundleLookup(tenant, environment)) {
      this.#settle(key);
      const held = this.#keys.get(key);
      if (held !== undefined) return held;
    }
    return undefined;
  }

  /**
   * What `principal` may do, per its tenant's bundle. POLICY_UNAVAILABLE when the tenant has no
   * usable bundle; POLICY_DENIED when the bundle does not declare the agent.
   */
  access(principal: Principal): PrincipalAccess {
    const { tenant, agent } = principal;
    const held = this.#deciding(tenant, principal.environment);
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

  #fail(key: string, reason: string): BundleChange {
    this.#keys.set(key, { decider: new LocalDecider(), failed: reason });
    return { kind: 'failed', key, reason };
  }
}
