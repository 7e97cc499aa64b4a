import type { JsonValue } from '@bufbuild/protobuf';
import { descriptorHash } from '@tollgate/core';
import type { Principal, PublishedResource } from '@tollgate/core';
import { decodePageToken, encodePageToken, pagePositions, tenantOf } from '@tollgate/kit';
import type { Bundles } from '../bundles/bundles.js';
import type { TenantCompiler } from '../bundles/compile.js';
import type { PublishedBundle } from '../bundles/publisher.js';
import { concurrentChange, notFound, versionConflict } from '../errors.js';
import type { DeclarationChange } from '../events.js';
import type {
  DeclarationKind,
  DeclarationRecord,
  DeclarationStore,
} from '../store/declarations.js';
import { ROLES, requireMayApplyAgent, requireRoles, rolesIn } from './access.js';
import type { AccessControl } from './access.js';
import { diffDocuments } from './diff.js';
import type { DiffEntry } from './diff.js';
import { checkCandidate, missing, validDescriptor } from './validate.js';
import type { TenantSnapshot } from './validate.js';

export interface DeclarationsDeps {
  agents: DeclarationStore<'Agent'>;
  policies: DeclarationStore<'Policy'>;
  access: AccessControl;
  bundles: Pick<Bundles, 'afterChange'>;
  resources: { ofTenant(tenant: string): PublishedResource[] };
  compiler: TenantCompiler;
  clock?: () => Date;
}

export interface ApplyOptions {
  /** The version that must be current (0 = must not exist). */
  expectedVersion?: number | undefined;
  /** Validate, compile and diff only; nothing is stored. */
  dryRun?: boolean;
}

/** Result of a change: the version now current (or that would be), what changed, and the bundle. */
export interface ChangeOutcome<K extends DeclarationKind> {
  record: DeclarationRecord<K>;
  unchanged: boolean;
  diff: DiffEntry[];
  /** The published bundle that includes the change (absent for no-ops, dry runs, deferred publishing). */
  bundle?: PublishedBundle;
}

export interface NameQuery {
  tenant?: string | undefined;
  name: string;
}

export interface ListQuery {
  tenant?: string | undefined;
  pageSize: number;
  pageToken: string;
}

type Content<K extends DeclarationKind> = Pick<
  DeclarationRecord<K>,
  'descriptor' | 'hash' | 'deleted' | 'cedar'
>;
type Plan<K extends DeclarationKind> = { unchanged: DeclarationRecord<K> } | { next: Content<K> };
/** Authorizes the change (throws) and plans it, from the tenant's declarations. */
type Planner<K extends DeclarationKind> = (
  head: DeclarationRecord<K> | undefined,
  snapshot: TenantSnapshot,
) => Plan<K>;

const MAX_ATTEMPTS = 5;

/**
 * Declared Agents and Policies: apply, read, list and (policies) delete, within the caller's
 * tenant. A change is validated by compiling the tenant's would-be bundle before anything is
 * stored, so a policy the bundle cannot hold (invalid raw Cedar, a grant that does not compile)
 * is refused with every problem (raw Cedar problems carry line and column) and nothing changes.
 * Each stored change republishes the tenant's bundle before the call returns.
 */
export class Declarations {
  readonly #deps: DeclarationsDeps;
  readonly #clock: () => Date;

  constructor(deps: DeclarationsDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? (() => new Date());
  }

  async applyAgent(
    principal: Principal,
    input: unknown,
    options: ApplyOptions = {},
  ): Promise<ChangeOutcome<'Agent'>> {
    const descriptor = validDescriptor(input, 'Agent');
    const tenant = tenantOf(principal, descriptor.metadata.tenant);
    const hash = descriptorHash(descriptor);
    const { name } = descriptor.metadata;
    return this.#change(this.#deps.agents, principal, tenant, name, options, (head, snapshot) => {
      requireMayApplyAgent(principal, snapshot.agents, descriptor);
      if (head !== undefined && !head.deleted && head.hash === hash) return { unchanged: head };
      this.#check(tenant, snapshot, { agent: { descriptor, hash } });
      return { next: { descriptor, hash, deleted: false, cedar: '' } };
    });
  }

  async applyPolicy(
    principal: Principal,
    input: unknown,
    options: ApplyOptions = {},
  ): Promise<ChangeOutcome<'Policy'>> {
    const descriptor = validDescriptor(input, 'Policy');
    const tenant = tenantOf(principal, descriptor.metadata.tenant);
    const hash = descriptorHash(descriptor);
    const { name } = descriptor.metadata;
    return this.#change(this.#deps.policies, principal, tenant, name, options, (head, snapshot) => {
      requireAdmin(principal, snapshot, 'apply policies');
      if (head !== undefined && !head.deleted && head.hash === hash) return { unchanged: head };
      const cedar = this.#check(tenant, snapshot, { policy: { descriptor, hash } });
      return { next: { descriptor, hash, deleted: false, cedar } };
    });
  }

  /** Soft delete: a tombstone version keeping the last descriptor; re-applying revives it. */
  async deletePolicy(
    principal: Principal,
    query: NameQuery & { expectedVersion?: number | undefined },
  ): Promise<ChangeOutcome<'Policy'>> {
    const tenant = tenantOf(principal, query.tenant);
    return this.#change(
      this.#deps.policies,
      principal,
      tenant,
      query.name,
      query,
      (head, snapshot) => {
        requireAdmin(principal, snapshot, 'delete policies');
        if (head === undefined || head.deleted) throw missing('Policy', tenant, query.name, head);
        return { next: { descriptor: head.descriptor, hash: head.hash, deleted: true, cedar: '' } };
      },
    );
  }

  async getAgent(principal: Principal, query: NameQuery): Promise<DeclarationRecord<'Agent'>> {
    const tenant = tenantOf(principal, query.tenant);
    if (query.name !== principal.agent)
      await this.#deps.access.require(
        principal,
        [ROLES.admin, ROLES.approver, ROLES.viewer],
        'read other agents',
      );
    const head = await this.#deps.agents.current(tenant, query.name);
    if (head === undefined || head.deleted) throw missing('Agent', tenant, query.name, head);
    return head;
  }

  /** The current version (0) or one version; a deleted policy's current version is NOT_FOUND. */
  async getPolicy(
    principal: Principal,
    query: NameQuery & { version: number },
  ): Promise<DeclarationRecord<'Policy'>> {
    const tenant = tenantOf(principal, query.tenant);
    await this.#deps.access.require(
      principal,
      [ROLES.admin, ROLES.approver, ROLES.viewer],
      'read policies',
    );
    const head = await this.#deps.policies.current(tenant, query.name);
    if (head === undefined) throw missing('Policy', tenant, query.name, head);
    if (query.version === 0) {
      if (head.deleted) throw missing('Policy', tenant, query.name, head);
      return head;
    }
    const record = await this.#deps.policies.version(tenant, query.name, query.version);
    if (record === undefined)
      throw notFound(
        `Policy "${query.name}" of tenant "${tenant}" has no version ${query.version} (the latest is ${head.version}).`,
      );
    return record;
  }

  listAgents(principal: Principal, query: ListQuery) {
    return this.#list(this.#deps.agents, principal, query);
  }

  listPolicies(principal: Principal, query: ListQuery) {
    return this.#list(this.#deps.policies, principal, query);
  }

  async #list<K extends DeclarationKind>(
    store: DeclarationStore<K>,
    principal: Principal,
    query: ListQuery,
  ): Promise<{ records: DeclarationRecord<K>[]; nextPageToken: string }> {
    const tenant = tenantOf(principal, query.tenant);
    const plural = store.kind === 'Agent' ? 'agents' : 'policies';
    await this.#deps.access.require(
      principal,
      [ROLES.admin, ROLES.approver, ROLES.viewer],
      `list ${plural}`,
    );
    const bound = { list: plural, tenant };
    const after = decodePageToken(query.pageToken, bound, pagePositions.name);
    const live = (await store.liveIn(tenant)).filter((r) => after === undefined || r.name > after);
    const records = live.slice(0, query.pageSize);
    const last = records.at(-1);
    const more = live.length > records.length && last !== undefined;
    return { records, nextPageToken: more ? encodePageToken(last.name, bound) : '' };
  }

  #check(
    tenant: string,
    snapshot: TenantSnapshot,
    candidate: Parameters<typeof checkCandidate>[4],
  ): string {
    const resources = this.#deps.resources.ofTenant(tenant);
    return checkCandidate(this.#deps.compiler, tenant, snapshot, resources, candidate);
  }

  /**
   * Reads the tenant's declarations (one round trip for both kinds), plans the next version,
   * checks the expected version and commits (the version insert is the compare-and-set). A
   * lost race is retried from the newest row; with an expected version it is a conflict.
   */
  async #change<K extends DeclarationKind>(
    store: DeclarationStore<K>,
    principal: Principal,
    tenant: string,
    name: string,
    options: ApplyOptions,
    plan: Planner<K>,
  ): Promise<ChangeOutcome<K>> {
    const what = `${store.kind} "${name}" of tenant "${tenant}"`;
    let probe = false;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const [agents, policies, probed] = await Promise.all([
        this.#deps.agents.currentIn(tenant),
        this.#deps.policies.currentIn(tenant),
        probe ? store.current(tenant, name) : undefined,
      ]);
      const snapshot: TenantSnapshot = { agents, policies };
      const own = (store.kind === 'Agent' ? agents : policies) as DeclarationRecord<K>[];
      const head = probe ? probed : own.find((r) => r.name === name);
      const current = head?.version ?? 0;
      const decided = plan(head, snapshot);
      if (options.expectedVersion !== undefined && options.expectedVersion !== current) {
        if (!probe) {
          probe = true; // confirm against the newest row before refusing
          continue;
        }
        throw versionConflict(what, current, options.expectedVersion);
      }
      if ('unchanged' in decided) return { record: decided.unchanged, unchanged: true, diff: [] };
      const next: DeclarationRecord<K> = {
        ...decided.next,
        kind: store.kind,
        tenant,
        name,
        version: current + 1,
        previousVersion: current,
        createdAt: this.#clock(),
        createdBy: principal.user ? `${principal.agent}/${principal.user}` : principal.agent,
      };
      const before = head === undefined || head.deleted ? undefined : head.descriptor;
      const diff = next.deleted ? [] : diffDocuments(asJson(before), asJson(next.descriptor));
      if (options.dryRun === true) return { record: next, unchanged: false, diff };
      if (await store.commit(next)) {
        const change: DeclarationChange = {
          subject: store.kind === 'Agent' ? 'agent' : 'policy',
          name,
          version: next.version,
          deleted: next.deleted,
          changedBy: next.createdBy,
        };
        const bundle = await this.#deps.bundles.afterChange(tenant, change);
        return { record: next, unchanged: false, diff, ...(bundle ? { bundle } : {}) };
      }
      if (options.expectedVersion !== undefined) throw concurrentChange(what, current);
      probe = true;
    }
    throw concurrentChange(what, (await store.current(tenant, name))?.version ?? 0);
  }
}

function requireAdmin(principal: Principal, snapshot: TenantSnapshot, doing: string): void {
  requireRoles(principal, rolesIn(snapshot.agents, principal), [ROLES.admin], doing);
}

function asJson(descriptor: unknown): JsonValue | undefined {
  return descriptor as JsonValue | undefined;
}
