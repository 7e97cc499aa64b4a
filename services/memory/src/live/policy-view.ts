/**
 * What memory checks facts and reviewers against: the live policy bundles of the tenants, from
 * the policy service's `tollgate_policy_bundles` KV projection (the same bundles the executor
 * decides calls with: each environment's, and the tenant's without resources, which holds the
 * roles). From a tenant's bundle it knows the roles of each agent, what a principal
 * may do on a resource and which fields it may see (policy's permission set, computed from the
 * resource's schema and the field policies), and the tool names of the tenant. A tenant without
 * a usable bundle is unavailable: nothing can be checked, so nothing typed is written and nobody
 * counts as a reviewer (fail closed).
 */
import type { Principal } from '@tollgate/core';
import { toolName } from '@tollgate/core';
import {
  parsePolicyBundleKey,
  policyBundleKey,
  policyBundleLookup,
  watchBucket,
} from '@tollgate/kit';
import type { BucketWatch, KV, Logger } from '@tollgate/kit';
import { LocalDecider, agentRoles, parseBundle } from '@tollgate/policy';
import type { PolicyBundle } from '@tollgate/policy';

/** What a principal may do on one resource, per its tenant's bundle. */
export interface ResourceAccess {
  /** Operations it may call (empty: the resource is not visible to it). */
  operations: readonly string[];
  /** Fields it may see in results, sorted. */
  visibleFields: readonly string[];
}

/** The live state memory checks against. */
export interface LiveState {
  /** The roles the tenant's bundle gives `agent`; undefined when the tenant has no usable bundle. */
  rolesOf(tenant: string, agent: string): readonly string[] | undefined;
  /** What `principal` may do on `resource`; undefined when its tenant has no usable bundle. */
  access(principal: Principal, resource: string): ResourceAccess | undefined;
  /** Every tool name of the tenant's resources (empty when unknown). */
  toolNames(tenant: string): ReadonlySet<string>;
  /** The resource and operation behind one of the tenant's tool names. */
  toolOf(tenant: string, tool: string): { resource: string; operation: string } | undefined;
}

/** One bundle as memory holds it. */
interface Held {
  decider: LocalDecider;
  hash: string;
  roles: Map<string, string[]>;
  tools: Map<string, { resource: string; operation: string }>;
}

export class PolicyView implements LiveState {
  /** By bundle key (`<tenant>`, `<tenant>.<environment>`). */
  readonly #held = new Map<string, Held>();
  /** Each tenant's bundle keys. */
  readonly #keysOf = new Map<string, Set<string>>();
  readonly #logger: Logger;
  #watch: BucketWatch | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** A view following `kv`; resolves once the bundles present are loaded. */
  static async follow(kv: KV, logger: Logger): Promise<PolicyView> {
    const view = new PolicyView(logger);
    view.#watch = await watchBucket(kv, (key, value) => view.apply(key, value), logger);
    await view.#watch.ready;
    return view;
  }

  /** Applies one KV entry (`value` undefined: the bundle under `key` was removed). */
  apply(key: string, value: Uint8Array | undefined): void {
    const tenant = parsePolicyBundleKey(key)?.tenant;
    if (value === undefined || tenant === undefined) {
      this.#forget(key);
      return;
    }
    const parsed = parseBundle(value);
    if (!parsed.ok || parsed.bundle.tenant !== tenant) {
      this.#forget(key);
      this.#logger.warn(
        { key, reason: parsed.ok ? 'stored under another tenant' : parsed.reason },
        'policy bundle unusable; memory cannot check facts or reviewers against it',
      );
      return;
    }
    const decider = new LocalDecider();
    const loaded = decider.load(parsed.bundle);
    if (!loaded.ok) {
      this.#forget(key);
      this.#logger.warn({ key, reason: loaded.reason }, 'policy bundle refused by memory');
      return;
    }
    this.#held.set(key, { decider, hash: loaded.hash, ...entitiesOf(parsed.bundle) });
    const keys = this.#keysOf.get(tenant) ?? new Set<string>();
    keys.add(key);
    this.#keysOf.set(tenant, keys);
  }

  /** Hash of the bundle held under `tenant` (and `environment`), if any. */
  bundleHash(tenant: string, environment?: string): string | undefined {
    return this.#held.get(policyBundleKey(tenant, environment))?.hash;
  }

  rolesOf(tenant: string, agent: string): readonly string[] | undefined {
    const held = this.#held.get(policyBundleKey(tenant));
    if (held === undefined) return undefined;
    return held.roles.get(agent) ?? [];
  }

  access(principal: Principal, resource: string): ResourceAccess | undefined {
    const held = policyBundleLookup(principal.tenant, principal.environment)
      .map((key) => this.#held.get(key))
      .find((h) => h !== undefined);
    if (held === undefined) return undefined;
    const permissions = held.decider.permissionSet(
      {
        tenant: principal.tenant,
        agent: principal.agent,
        environment: principal.environment,
        ...(principal.user ? { user: principal.user } : {}),
      },
      resource,
    );
    if (permissions.unavailable !== undefined) return undefined;
    return { operations: permissions.operations, visibleFields: permissions.visibleFields };
  }

  /** Every tool name of the tenant's resources, in any environment. */
  toolNames(tenant: string): ReadonlySet<string> {
    return new Set(this.#bundlesOf(tenant).flatMap((held) => [...held.tools.keys()]));
  }

  toolOf(tenant: string, tool: string): { resource: string; operation: string } | undefined {
    for (const held of this.#bundlesOf(tenant)) {
      const target = held.tools.get(tool);
      if (target !== undefined) return target;
    }
    return undefined;
  }

  #bundlesOf(tenant: string): Held[] {
    return [...(this.#keysOf.get(tenant) ?? [])]
      .map((key) => this.#held.get(key))
      .filter((held): held is Held => held !== undefined);
  }

  #forget(key: string): void {
    this.#held.delete(key);
    const tenant = parsePolicyBundleKey(key)?.tenant;
    if (tenant !== undefined) this.#keysOf.get(tenant)?.delete(key);
  }

  stop(): void {
    this.#watch?.stop();
  }
}

/** Agent → roles (policy's reading of a bundle), and every tool name of its resources. */
function entitiesOf(bundle: PolicyBundle): Pick<Held, 'roles' | 'tools'> {
  const tools: Held['tools'] = new Map();
  for (const entity of bundle.entities) {
    const uid = entity.uid as { type?: unknown; id?: unknown };
    if (uid.type !== 'Resource' || typeof uid.id !== 'string') continue;
    for (const { name: operation } of bundle.operations[uid.id] ?? [])
      tools.set(toolName(uid.id, operation), { resource: uid.id, operation });
  }
  return { roles: agentRoles(bundle), tools };
}
