import type { JsonValue } from '@bufbuild/protobuf';
import {
  applyDescriptorDefaults,
  descriptorHash,
  descriptorInvalid,
  egressGuard,
  validateDescriptor,
} from '@tollgate/core';
import type {
  CredentialNamespaces,
  CredentialUse,
  EgressGuard,
  EgressRules,
  KindRegistry,
  Principal,
  ResourceDescriptor,
  ResourceKinds,
} from '@tollgate/core';
import { decodePageToken, encodePageToken, pagePositions } from '@tollgate/kit';
import type { AddressLookup } from '@tollgate/kit';
import type { Catalog } from './catalog.js';
import { assertCredentialsInScope } from './credential-scope.js';
import { assertEgressAllowed } from './egress-scope.js';
import { diffDocuments } from './diff.js';
import type { DiffEntry } from './diff.js';
import {
  alreadyCurrent,
  concurrentChange,
  notAResource,
  resourceDeleted,
  resourceNotFound,
  rollbackToDeletion,
  versionConflict,
  versionNotFound,
} from './errors.js';
import type { PinOnConfirm } from './pinning.js';
import type { VersionRecord } from './records.js';
import { resourceId, scopeOf } from './scope.js';
import type { ResourceRef, Scope } from './scope.js';
import type { ResourceStore } from './store.js';
import { applyWarnings } from './warnings.js';
import type { Warning } from './warnings.js';

/** Where a request points: its scope fields (empty = the caller's) and a resource name. */
export interface ResourceQuery {
  tenant?: string | undefined;
  environment?: string | undefined;
  name: string;
}

export interface ApplyOptions {
  /** The version that must be current (0 = the resource must not exist). */
  expectedVersion?: number | undefined;
  /** Validate and diff only. */
  dryRun?: boolean;
}

/** Result of a change: the version now current (or that would be), and what changed. */
export interface ChangeOutcome {
  record: VersionRecord;
  /** True when nothing changed and no version was made. */
  unchanged: boolean;
  diff: DiffEntry[];
  warnings: Warning[];
}

export interface ListQuery {
  tenant?: string | undefined;
  environment?: string | undefined;
  labels: Record<string, string>;
  type: string | undefined;
  includeDeleted: boolean;
  pageSize: number;
  pageToken: string;
}

export interface HistoryQuery extends ResourceQuery {
  pageSize: number;
  pageToken: string;
}

export interface Page {
  records: VersionRecord[];
  /** Empty on the last page. */
  nextPageToken: string;
}

/** Announces a committed version (KV projection, then event); never throws. */
export interface ChangeSink {
  changed(record: VersionRecord): Promise<void>;
}

export interface RegistryDeps {
  store: ResourceStore;
  catalog: Catalog;
  changes: ChangeSink;
  /** Which credential references each tenant's resources may name. */
  credentialNamespaces: CredentialNamespaces;
  /** Which destinations each tenant's resources may connect to. */
  egressRules: EgressRules;
  /** How endpoint host names are resolved for the egress check (default: the system's). */
  resolveHost?: AddressLookup;
  /** The kinds descriptors are read with. */
  kinds: KindRegistry;
  /** What confirmation records of the live system (default: nothing). */
  pin?: PinOnConfirm;
  clock?: () => Date;
}

type Plan = { unchanged: VersionRecord } | { next: Content };
type Attempt = 'lost' | { committed: boolean; outcome: Omit<ChangeOutcome, 'warnings'> };
type Content = Pick<VersionRecord, 'descriptor' | 'hash' | 'change' | 'deleted' | 'rolledBackFrom'>;

const MAX_ATTEMPTS = 5;

/**
 * Declared resources and their immutable versions: apply, read, list, history, rollback and
 * soft delete, within the caller's tenant and environment. Transport-free; the gRPC layer
 * checks request fields and maps errors.
 */
export class Registry {
  readonly #store: ResourceStore;
  readonly #catalog: Catalog;
  readonly #changes: ChangeSink;
  readonly #namespaces: CredentialNamespaces;
  readonly #egress: EgressRules;
  readonly #resolveHost: AddressLookup | undefined;
  readonly #kinds: KindRegistry;
  readonly #pin: PinOnConfirm | undefined;
  readonly #clock: () => Date;

  constructor(deps: RegistryDeps) {
    this.#kinds = deps.kinds;
    this.#pin = deps.pin;
    this.#store = deps.store;
    this.#catalog = deps.catalog;
    this.#changes = deps.changes;
    this.#namespaces = deps.credentialNamespaces;
    this.#egress = deps.egressRules;
    this.#resolveHost = deps.resolveHost;
    this.#clock = deps.clock ?? (() => new Date());
  }

  /**
   * Validates a Resource descriptor and makes it the next version. Applying what is already
   * current is a no-op (`unchanged`); applying a deleted resource revives it. A credential
   * reference outside the tenant's namespace is refused (INVALID_ARGUMENT), dry run or not.
   * A kind that pins the live system pins what is still unpinned first (dry run too, so the
   * diff shows the pins), and the pinned descriptor is validated again.
   */
  async apply(
    principal: Principal,
    input: unknown,
    options: ApplyOptions = {},
  ): Promise<ChangeOutcome> {
    const declared = checkedResource(input, this.#kinds);
    const ref = refOfDescriptor(principal, declared);
    assertCredentialsInScope(this.#namespaces, ref, this.#credentialUses(declared));
    // Both before pinning, which connects to the live system.
    await this.assertEgress(ref, declared);
    const pinned = this.#pin === undefined ? declared : await this.#pin(declared);
    const descriptor =
      pinned === declared
        ? applyDescriptorDefaults(declared, this.#kinds)
        : validResource(pinned, this.#kinds);
    const hash = descriptorHash(descriptor);
    const outcome = await this.#change(principal, ref, options, (latest): Plan => {
      if (latest !== undefined && !latest.deleted && latest.hash === hash)
        return { unchanged: latest };
      return { next: { descriptor, hash, change: 'applied', deleted: false, rolledBackFrom: 0 } };
    });
    return { ...outcome, warnings: this.#warnings(descriptor) };
  }

  /**
   * INVALID_ARGUMENT when an endpoint of the descriptor is outside the egress rules of `scope`
   * (drafts and discovery ask too, before connecting).
   */
  async assertEgress(scope: Scope, descriptor: { spec: unknown }, version?: number): Promise<void> {
    const spec = descriptor.spec as { type?: unknown };
    const kind = typeof spec.type === 'string' ? this.#kinds.find(spec.type) : undefined;
    const uses = kind?.endpoints(spec as never) ?? [];
    await assertEgressAllowed(this.#egress, scope, uses, this.#resolveHost, version);
  }

  /** The egress rules of `scope`, for a kind to ask with each address before connecting. */
  egressGuard(scope: Scope): EgressGuard {
    return egressGuard(this.#egress, scope);
  }

  /** The credential references a valid descriptor's kind says it names. */
  #credentialUses(descriptor: ResourceDescriptor): CredentialUse[] {
    return this.#kinds.get(descriptor.spec.type).credentialRefs(descriptor.spec);
  }

  #warnings(descriptor: ResourceDescriptor): Warning[] {
    return applyWarnings(descriptor, this.#kinds.get(descriptor.spec.type).operations(descriptor));
  }

  /** The current version (0) or one version; a deleted resource's current version is NOT_FOUND. */
  async get(
    principal: Principal,
    query: ResourceQuery & { version: number },
  ): Promise<VersionRecord> {
    const ref = refOf(principal, query);
    const latest = await this.#current(ref);
    if (latest === undefined) throw resourceNotFound(ref);
    if (query.version === 0) {
      if (latest.deleted) throw resourceDeleted(ref, latest.version);
      return latest;
    }
    const record = await this.#store.version(ref, query.version);
    if (record === undefined) throw versionNotFound(ref, query.version, latest.version);
    return record;
  }

  /** Current versions in the caller's scope, by name, filtered. */
  list(principal: Principal, query: ListQuery): Page {
    const scope = scopeOf(principal, query);
    const filter = {
      scope,
      labels: query.labels,
      type: query.type ?? '',
      deleted: query.includeDeleted,
    };
    const after = decodePageToken(query.pageToken, filter, pagePositions.name);
    const page = this.#catalog.list(scope, {
      labels: query.labels,
      type: query.type,
      includeDeleted: query.includeDeleted,
      after,
      limit: query.pageSize,
    });
    const last = page.records.at(-1);
    return {
      records: page.records,
      nextPageToken: page.more && last !== undefined ? encodePageToken(last.name, filter) : '',
    };
  }

  /** Every version of one resource, newest first. */
  async history(principal: Principal, query: HistoryQuery): Promise<Page> {
    const ref = refOf(principal, query);
    const latest = await this.#current(ref);
    if (latest === undefined) throw resourceNotFound(ref);
    const bound = { history: resourceId(ref) };
    const before =
      decodePageToken(query.pageToken, bound, pagePositions.sequence) ?? latest.version + 1;
    const top = Math.min(before - 1, latest.version);
    const last = Math.max(1, top - query.pageSize + 1);
    const records = top < 1 ? [] : await this.#store.versions(ref, top, last);
    return {
      records,
      nextPageToken: top >= 1 && last > 1 ? encodePageToken(last, bound) : '',
    };
  }

  /**
   * Makes a new version whose descriptor is that of `toVersion` (which may revive a deleted
   * resource), unless its credential reference is outside today's namespace.
   */
  async rollback(
    principal: Principal,
    query: ResourceQuery & { toVersion: number; expectedVersion?: number | undefined },
  ): Promise<ChangeOutcome> {
    const ref = refOf(principal, query);
    const outcome = await this.#change(principal, ref, query, async (latest): Promise<Plan> => {
      if (latest === undefined) throw resourceNotFound(ref);
      if (query.toVersion > latest.version)
        throw versionNotFound(ref, query.toVersion, latest.version);
      const target = await this.#store.version(ref, query.toVersion);
      if (target === undefined) throw versionNotFound(ref, query.toVersion, latest.version);
      if (target.deleted) throw rollbackToDeletion(ref, query.toVersion);
      assertCredentialsInScope(
        this.#namespaces,
        ref,
        this.#credentialUses(target.descriptor),
        query.toVersion,
      );
      await this.assertEgress(ref, target.descriptor, query.toVersion);
      if (query.toVersion === latest.version) throw alreadyCurrent(ref, query.toVersion);
      const { descriptor, hash } = target;
      return {
        next: {
          descriptor,
          hash,
          change: 'rolled_back',
          deleted: false,
          rolledBackFrom: query.toVersion,
        },
      };
    });
    return { ...outcome, warnings: this.#warnings(outcome.record.descriptor) };
  }

  /** Soft delete: a tombstone version keeping the last descriptor; history stays readable. */
  async delete(
    principal: Principal,
    query: ResourceQuery & { expectedVersion?: number | undefined },
  ): Promise<VersionRecord> {
    const ref = refOf(principal, query);
    const outcome = await this.#change(principal, ref, query, (latest): Plan => {
      if (latest === undefined) throw resourceNotFound(ref);
      if (latest.deleted) throw resourceDeleted(ref, latest.version);
      const { descriptor, hash } = latest;
      return { next: { descriptor, hash, change: 'deleted', deleted: true, rolledBackFrom: 0 } };
    });
    return outcome.record;
  }

  /** The store's current version, probed from the one the catalog holds. */
  #current(ref: ResourceRef): Promise<VersionRecord | undefined> {
    return this.#store.current(ref, this.#catalog.get(resourceId(ref)));
  }

  /**
   * Plans the next version from the current one and commits it by inserting it (the store's
   * unique index lets exactly one concurrent writer win). The first attempt starts from the
   * catalog, which is current unless another instance changed the resource a moment ago; a
   * commit from a stale view simply loses the race. Every other outcome (no-op, dry run,
   * refusal) is only given once confirmed against the store, and a lost race is decided again
   * from the store (a conflict when the caller named the version it expected).
   */
  async #change(
    principal: Principal,
    ref: ResourceRef,
    options: ApplyOptions,
    plan: (latest: VersionRecord | undefined) => Plan | Promise<Plan>,
  ): Promise<Omit<ChangeOutcome, 'warnings'>> {
    const id = resourceId(ref);
    let latest = this.#catalog.get(id);
    let fresh = latest === undefined;
    if (fresh) latest = await this.#store.current(ref);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      let attempted: Attempt;
      try {
        attempted = await this.#attempt(principal, ref, options, plan, latest);
      } catch (err) {
        if (fresh) throw err;
        attempted = 'lost';
      }
      if (attempted !== 'lost' && (fresh || attempted.committed)) return attempted.outcome;
      if (attempted === 'lost' && fresh && options.expectedVersion !== undefined) {
        throw concurrentChange(ref, latest?.version ?? 0);
      }
      latest = await this.#store.current(ref, this.#catalog.get(id));
      fresh = true;
    }
    throw concurrentChange(ref, latest?.version ?? 0);
  }

  /** One try from `latest`: the outcome (committed or not), or `lost` when another change won. */
  async #attempt(
    principal: Principal,
    ref: ResourceRef,
    options: ApplyOptions,
    plan: (latest: VersionRecord | undefined) => Plan | Promise<Plan>,
    latest: VersionRecord | undefined,
  ): Promise<Attempt> {
    const decided = await plan(latest);
    const current = latest?.version ?? 0;
    if (options.expectedVersion !== undefined && options.expectedVersion !== current) {
      throw versionConflict(ref, current, options.expectedVersion);
    }
    if ('unchanged' in decided) {
      return {
        committed: false,
        outcome: { record: decided.unchanged, unchanged: true, diff: [] },
      };
    }
    const next: VersionRecord = {
      ...ref,
      ...decided.next,
      version: current + 1,
      previousVersion: current,
      createdAt: this.#clock(),
      createdBy: principal.agent,
    };
    const diff = diffDocuments(asJson(latest?.descriptor), asJson(next.descriptor));
    const outcome = { record: next, unchanged: false, diff };
    if (options.dryRun === true) return { committed: false, outcome };
    if (!(await this.#store.commit(next))) return 'lost';
    this.#catalog.put(next);
    await this.#changes.changed(next);
    return { committed: true, outcome };
  }
}

/** Validates a descriptor (every problem at once) and fills its defaults; only Resources. */
export function validResource(input: unknown, kinds: ResourceKinds): ResourceDescriptor {
  return applyDescriptorDefaults(checkedResource(input, kinds), kinds);
}

/** A valid Resource descriptor as declared, before defaults. */
function checkedResource(input: unknown, kinds: ResourceKinds): ResourceDescriptor {
  const result = validateDescriptor(input, kinds);
  if (!result.ok) throw descriptorInvalid(result.problems);
  if (result.descriptor.kind !== 'Resource') throw notAResource(result.descriptor.kind);
  return result.descriptor;
}

function refOfDescriptor(principal: Principal, descriptor: ResourceDescriptor): ResourceRef {
  const { tenant, environment, name } = descriptor.metadata;
  return { ...scopeOf(principal, { tenant, environment }), name };
}

function refOf(principal: Principal, query: ResourceQuery): ResourceRef {
  return { ...scopeOf(principal, query), name: query.name };
}

function asJson(descriptor: ResourceDescriptor | undefined): JsonValue | undefined {
  return descriptor as unknown as JsonValue | undefined;
}
