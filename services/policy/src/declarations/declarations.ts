import type { JsonValue } from '@bufbuild/protobuf';
import {
  TollgateError,
  descriptorHash,
  descriptorInvalid,
  validateDescriptor,
} from '@tollgate/core';
import type {
  AgentDescriptor,
  PolicyDescriptor,
  Principal,
  PublishedResource,
} from '@tollgate/core';
import { tenantOf } from '@tollgate/kit';
import type { PolicyProblem } from '@tollgate/policy';
import type { Bundles } from '../bundles/bundles.js';
import { cedarOfPolicy, compileTenant } from '../bundles/compile.js';
import type { PublishedBundle } from '../bundles/publisher.js';
import { concurrentChange, notFound, versionConflict } from '../errors.js';
import type { DeclarationChange } from '../events.js';
import { decodePageToken, encodePageToken } from '../paging.js';
import type {
  DeclarationKind,
  DeclarationRecord,
  DeclarationStore,
} from '../store/declarations.js';
import { ROLES } from './access.js';
import type { AccessControl } from './access.js';
import { diffDocuments } from './diff.js';
import type { DiffEntry } from './diff.js';

export interface DeclarationsDeps {
  agents: DeclarationStore<'Agent'>;
  policies: DeclarationStore<'Policy'>;
  access: AccessControl;
  bundles: Pick<Bundles, 'afterChange'>;
  resources: { resourcesOf(tenant: string): PublishedResource[] };
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
    await this.#deps.access.mayApplyAgent(principal, descriptor);
    const hash = descriptorHash(descriptor);
    return this.#change(
      this.#deps.agents,
      principal,
      tenant,
      descriptor.metadata.name,
      options,
      async (head) => {
        if (head !== undefined && !head.deleted && head.hash === hash) return { unchanged: head };
        await this.#check(tenant, { agent: descriptor });
        return { next: { descriptor, hash, deleted: false, cedar: '' } };
      },
    );
  }

  async applyPolicy(
    principal: Principal,
    input: unknown,
    options: ApplyOptions = {},
  ): Promise<ChangeOutcome<'Policy'>> {
    const descriptor = validDescriptor(input, 'Policy');
    const tenant = tenantOf(principal, descriptor.metadata.tenant);
    await this.#deps.access.require(principal, [ROLES.admin], 'apply policies');
    const hash = descriptorHash(descriptor);
    const name = descriptor.metadata.name;
    return this.#change(this.#deps.policies, principal, tenant, name, options, async (head) => {
      if (head !== undefined && !head.deleted && head.hash === hash) return { unchanged: head };
      const cedar = await this.#check(tenant, { policy: descriptor });
      return { next: { descriptor, hash, deleted: false, cedar } };
    });
  }

  /** Soft delete: a tombstone version keeping the last descriptor; re-applying revives it. */
  async deletePolicy(
    principal: Principal,
    query: NameQuery & { expectedVersion?: number | undefined },
  ): Promise<ChangeOutcome<'Policy'>> {
    const tenant = tenantOf(principal, query.tenant);
    await this.#deps.access.require(principal, [ROLES.admin], 'delete policies');
    return this.#change(this.#deps.policies, principal, tenant, query.name, query, (head) => {
      if (head === undefined || head.deleted) throw missing('Policy', tenant, query.name, head);
      return Promise.resolve({
        next: { descriptor: head.descriptor, hash: head.hash, deleted: true, cedar: '' },
      });
    });
  }

  async getAgent(principal: Principal, query: NameQuery): Promise<DeclarationRecord<'Agent'>> {
    const tenant = tenantOf(principal, query.tenant);
    if (query.name !== principal.agent)
      await this.#deps.access.require(
        principal,
        [ROLES.admin, ROLES.approver],
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
    await this.#deps.access.require(principal, [ROLES.admin, ROLES.approver], 'read policies');
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
    await this.#deps.access.require(principal, [ROLES.admin, ROLES.approver], `list ${plural}`);
    const bound = { list: plural, tenant };
    const after = decodePageToken(
      query.pageToken,
      bound,
      (p): p is string => typeof p === 'string',
    );
    const live = (await store.liveIn(tenant)).filter((r) => after === undefined || r.name > after);
    const records = live.slice(0, query.pageSize);
    const last = records.at(-1);
    const more = live.length > records.length && last !== undefined;
    return { records, nextPageToken: more ? encodePageToken(last.name, bound) : '' };
  }

  /**
   * Compiles the tenant's bundle as it would be with `candidate` in place; throws
   * DESCRIPTOR_INVALID with every problem when it does not compile. Returns the Cedar a
   * candidate policy compiles to.
   */
  async #check(
    tenant: string,
    candidate: { agent: AgentDescriptor } | { policy: PolicyDescriptor },
  ): Promise<string> {
    const [agents, policies] = await Promise.all([
      this.#deps.agents.liveIn(tenant),
      this.#deps.policies.liveIn(tenant),
    ]);
    const replace = <D extends { metadata: { name: string } }>(list: D[], next: D | undefined) =>
      next === undefined
        ? list
        : [...list.filter((d) => d.metadata.name !== next.metadata.name), next];
    const agent = 'agent' in candidate ? candidate.agent : undefined;
    const policy = 'policy' in candidate ? candidate.policy : undefined;
    const compiled = compileTenant({
      tenant,
      version: 0,
      agents: replace(
        agents.map((r) => r.descriptor),
        agent,
      ),
      policies: replace(
        policies.map((r) => r.descriptor),
        policy,
      ),
      resources: this.#deps.resources.resourcesOf(tenant),
    });
    const subject = agent ?? policy;
    const prefix = `${subject?.kind}/${subject?.metadata.name}/`;
    if (!compiled.ok) throw descriptorInvalid(compiled.problems.map((p) => relative(p, prefix)));
    return policy === undefined ? '' : cedarOfPolicy(compiled.bundle, policy.metadata.name);
  }

  /**
   * Reads the head, plans the next version, checks the expected version and commits (the
   * version insert is the compare-and-set). Without an expected version a lost race is retried.
   */
  async #change<K extends DeclarationKind>(
    store: DeclarationStore<K>,
    principal: Principal,
    tenant: string,
    name: string,
    options: ApplyOptions,
    plan: (head: DeclarationRecord<K> | undefined) => Promise<Plan<K>>,
  ): Promise<ChangeOutcome<K>> {
    const what = `${store.kind} "${name}" of tenant "${tenant}"`;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const head = await store.current(tenant, name);
      const decided = await plan(head);
      const current = head?.version ?? 0;
      if (options.expectedVersion !== undefined && options.expectedVersion !== current)
        throw versionConflict(what, current, options.expectedVersion);
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
    }
    throw concurrentChange(what, (await store.current(tenant, name))?.version ?? 0);
  }
}

/** Validates a descriptor (every problem at once) and checks its kind. */
export function validDescriptor<K extends DeclarationKind>(
  input: unknown,
  kind: K,
): K extends 'Agent' ? AgentDescriptor : PolicyDescriptor {
  const result = validateDescriptor(input);
  if (!result.ok) throw descriptorInvalid(result.problems);
  const found = result.descriptor.kind;
  if (found !== kind) {
    const where =
      found === 'Resource'
        ? 'apply Resource descriptors to the registry'
        : `apply ${found} descriptors with Apply${found}`;
    const message = `Apply${kind} stores ${kind} descriptors; ${where}`;
    throw new TollgateError('INVALID_ARGUMENT', `descriptor.kind: ${message}`, {
      details: [{ path: 'kind', message, expected: kind, found: JSON.stringify(found) }],
    });
  }
  return result.descriptor as K extends 'Agent' ? AgentDescriptor : PolicyDescriptor;
}

function relative(problem: PolicyProblem, prefix: string) {
  const path = problem.path.startsWith(prefix) ? problem.path.slice(prefix.length) : problem.path;
  return { path, message: problem.message };
}

function missing(
  kind: DeclarationKind,
  tenant: string,
  name: string,
  head: DeclarationRecord | undefined,
): TollgateError {
  return notFound(
    head === undefined
      ? `${kind} "${name}" of tenant "${tenant}" does not exist.`
      : `${kind} "${name}" of tenant "${tenant}" was deleted (version ${head.version}); ask for a specific version to read its history.`,
  );
}

function asJson(descriptor: unknown): JsonValue | undefined {
  return descriptor as JsonValue | undefined;
}
