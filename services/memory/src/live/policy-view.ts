/**
 * What memory checks facts and reviewers against: the live policy bundles of the tenants, from
 * the policy service's `tollgate_policy_bundles` KV projection (the same bundles the executor
 * decides calls with). From a tenant's bundle it knows the roles of each agent, what a principal
 * may do on a resource and which fields it may see (policy's permission set, computed from the
 * resource's schema and the field policies), and the tool names of the tenant. A tenant without
 * a usable bundle is unavailable: nothing can be checked, so nothing typed is written and nobody
 * counts as a reviewer (fail closed).
 */
import type { Principal } from '@tollgate/core';
import { toolName } from '@tollgate/core';
import { watchBucket } from '@tollgate/kit';
import type { BucketWatch, KV, Logger } from '@tollgate/kit';
import { LocalDecider, parseBundle } from '@tollgate/policy';
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

interface Tenant {
  decider: LocalDecider;
  hash: string;
  roles: Map<string, string[]>;
  tools: Map<string, { resource: string; operation: string }>;
}

export class PolicyView implements LiveState {
  readonly #tenants = new Map<string, Tenant>();
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

  /** Applies one KV entry (`value` undefined: the tenant's bundle was removed). */
  apply(tenant: string, value: Uint8Array | undefined): void {
    if (value === undefined) {
      this.#tenants.delete(tenant);
      return;
    }
    const parsed = parseBundle(value);
    if (!parsed.ok || parsed.bundle.tenant !== tenant) {
      this.#tenants.delete(tenant);
      this.#logger.warn(
        { tenant, reason: parsed.ok ? 'stored under another tenant' : parsed.reason },
        'policy bundle unusable; memory cannot check facts or reviewers of this tenant',
      );
      return;
    }
    const decider = new LocalDecider();
    const loaded = decider.load(parsed.bundle);
    if (!loaded.ok) {
      this.#tenants.delete(tenant);
      this.#logger.warn({ tenant, reason: loaded.reason }, 'policy bundle refused by memory');
      return;
    }
    this.#tenants.set(tenant, { decider, hash: loaded.hash, ...entitiesOf(parsed.bundle) });
  }

  /** Hash of the bundle held for `tenant`, if any. */
  bundleHash(tenant: string): string | undefined {
    return this.#tenants.get(tenant)?.hash;
  }

  rolesOf(tenant: string, agent: string): readonly string[] | undefined {
    const held = this.#tenants.get(tenant);
    if (held === undefined) return undefined;
    return held.roles.get(agent) ?? [];
  }

  access(principal: Principal, resource: string): ResourceAccess | undefined {
    const held = this.#tenants.get(principal.tenant);
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

  toolNames(tenant: string): ReadonlySet<string> {
    return new Set(this.#tenants.get(tenant)?.tools.keys());
  }

  toolOf(tenant: string, tool: string): { resource: string; operation: string } | undefined {
    return this.#tenants.get(tenant)?.tools.get(tool);
  }

  stop(): void {
    this.#watch?.stop();
  }
}

/** Agent → roles, and every tool name, from a bundle's entities. */
function entitiesOf(bundle: PolicyBundle): Pick<Tenant, 'roles' | 'tools'> {
  const roles = new Map<string, string[]>();
  const tools: Tenant['tools'] = new Map();
  for (const entity of bundle.entities) {
    const uid = entity.uid as { type?: unknown; id?: unknown };
    if (typeof uid.id !== 'string') continue;
    if (uid.type === 'Resource') {
      for (const { name: operation } of bundle.operations[uid.id] ?? [])
        tools.set(toolName(uid.id, operation), { resource: uid.id, operation });
    }
    if (uid.type !== 'Agent') continue;
    const parents = (entity.parents ?? []) as { type?: unknown; id?: unknown }[];
    const names = parents
      .filter((p) => p.type === 'Role' && typeof p.id === 'string')
      .map((p) => p.id as string);
    roles.set(uid.id, [...new Set(names)].sort());
  }
  return { roles, tools };
}
