/**
 * A follower of the registry's `tollgate_resources` bucket (key `<tenant>.<environment>.<name>`):
 * the current version of every resource, hot-reloaded. The executor runs calls from it, the
 * policy service compiles bundles from it and the synthesizer offers tools from it, so all
 * three read an entry the same way: an entry that is not a `PublishedResource`, is stored under
 * another key, names another tenant, environment or name in its descriptor, or (unless told
 * not to validate) whose descriptor fails validation, is left out — and removes what its key
 * held (fail closed).
 * Everything is partitioned by scope (tenant × environment): a lookup names its scope and never
 * sees another's entries.
 */
import { parsePublishedResource, validateDescriptor } from '@tollgate/core';
import type {
  KindRegistry,
  OperationSpec,
  PublishedResource,
  ResourceDescriptor,
  VersionedResource,
} from '@tollgate/core';
import { resourceKinds } from '@tollgate/kinds';
import type { Logger } from '../log/logger.js';
import { watchBucket } from './kv.js';
import type { BucketWatch, KV } from './kv.js';
import { resourceKey, subjects } from '@tollgate/contracts/bus';

/** One resource as the catalog holds it: the version the registry last projected. */
export interface CatalogEntry extends PublishedResource {
  /** The KV key, `<tenant>.<environment>.<name>`; unique across the catalog. */
  key: string;
  /** Resource kind (`spec.type`). */
  kind: string;
  /** The operations its kind declares for this version, in tool order. */
  operations: readonly OperationSpec[];
  /** Where agents send calls to this resource's tools. */
  callSubject: string;
  /** The descriptor with its version, as tools are synthesized from it. */
  resource: VersionedResource;
}

/** A tenant and environment. */
export interface CatalogScope {
  tenant: string;
  environment: string;
}

/** What applying one KV value did. */
export type CatalogChange =
  | { kind: 'added' | 'updated'; entry: CatalogEntry }
  | { kind: 'removed'; key: string }
  | { kind: 'unchanged' }
  | { kind: 'rejected'; key: string; reason: string; removed: boolean };

/** How entries are read. */
export interface ReadOptions {
  /**
   * Validate each descriptor again (default true): the executor and the synthesizer do, since
   * what a descriptor says becomes tools and queries. The policy service leaves descriptors to
   * the registry; its compiler reports a resource it cannot compile.
   */
  validate?: boolean;
  /** The kinds descriptors are read with (default: this build's list). */
  kinds?: Pick<KindRegistry, 'find' | 'types'>;
}

/** The catalog entry a KV value describes, or why it cannot be used. */
export function readCatalogEntry(
  key: string,
  value: Uint8Array,
  options: ReadOptions = {},
): CatalogEntry | { invalid: string } {
  const published = parsePublishedResource(value);
  if ('invalid' in published) return { invalid: published.invalid };
  const { tenant, environment, name, version } = published;
  let expectedKey: string;
  try {
    expectedKey = resourceKey(tenant, environment, name);
  } catch (err) {
    return { invalid: (err as Error).message };
  }
  if (expectedKey !== key) return { invalid: `entry for ${expectedKey} is stored under ${key}` };
  let descriptor = published.descriptor;
  const kinds = options.kinds ?? resourceKinds;
  if (options.validate !== false) {
    const checked = validateDescriptor(descriptor, kinds);
    if (!checked.ok) {
      const first = checked.problems[0];
      const more = checked.problems.length > 1 ? ` (and ${checked.problems.length - 1} more)` : '';
      return {
        invalid: `descriptor is invalid: ${first?.path || '(root)'}: ${first?.message}${more}`,
      };
    }
    descriptor = checked.descriptor as ResourceDescriptor;
  }
  const meta: Partial<ResourceDescriptor['metadata']> = descriptor.metadata ?? {};
  if (meta.tenant !== tenant || meta.environment !== environment || meta.name !== name) {
    return {
      invalid: `descriptor names ${meta.tenant}/${meta.environment}/${meta.name}, not ${tenant}/${environment}/${name}`,
    };
  }
  const kind = String((descriptor.spec as Partial<ResourceDescriptor['spec']> | undefined)?.type);
  let callSubject: string;
  try {
    callSubject = subjects.call(kind, name);
  } catch (err) {
    return { invalid: (err as Error).message };
  }
  const known = kinds.find(kind);
  if (known === undefined && options.validate !== false)
    return { invalid: `its kind "${kind.slice(0, 64)}" is not registered here` };
  const operations = known?.operations(descriptor) ?? [];
  return {
    ...published,
    descriptor,
    key,
    kind,
    operations,
    callSubject,
    resource: { ...descriptor, version },
  };
}

/** How `ResourceCatalog.follow` reads and reports. */
export interface FollowOptions extends ReadOptions {
  /** Told about each change after the initial load, with the tenant it is in. */
  onChange?: (tenant: string, change: Exclude<CatalogChange, { kind: 'unchanged' }>) => void;
}

export class ResourceCatalog {
  readonly #read: ReadOptions;
  readonly #entries = new Map<string, CatalogEntry>();
  /** Scope → name → entry. */
  readonly #scopes = new Map<string, Map<string, CatalogEntry>>();
  /** Tenant → key → entry. */
  readonly #tenants = new Map<string, Map<string, CatalogEntry>>();
  #watch: BucketWatch | undefined;

  constructor(options: ReadOptions = {}) {
    this.#read = {
      validate: options.validate ?? true,
      ...(options.kinds === undefined ? {} : { kinds: options.kinds }),
    };
  }

  /**
   * A catalog following `kv`; resolves once the current entries are loaded. Rejected entries
   * are logged (with the reason, never the value).
   */
  static async follow(
    kv: KV,
    logger: Logger,
    options: FollowOptions = {},
  ): Promise<ResourceCatalog> {
    const catalog = new ResourceCatalog(options);
    let loaded = false;
    catalog.#watch = await watchBucket(
      kv,
      (key, value) => {
        const change = catalog.apply(key, value);
        if (change.kind === 'unchanged') return;
        if (change.kind === 'rejected') {
          logger.warn(
            { key, reason: change.reason },
            'resource entry is unusable; the resource is unavailable',
          );
          if (!change.removed) return;
        }
        if (loaded) options.onChange?.(key.slice(0, key.indexOf('.')), change);
      },
      logger,
    );
    await catalog.#watch.ready;
    loaded = true;
    return catalog;
  }

  /** Resources held, across all scopes. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Applies one KV entry: a value (added, updated or rejected) or a deletion (`undefined`). A
   * value that cannot be read removes what the key held: it is known to be outdated.
   */
  apply(key: string, value: Uint8Array | undefined): CatalogChange {
    if (value === undefined) {
      return this.#remove(key) ? { kind: 'removed', key } : { kind: 'unchanged' };
    }
    const entry = readCatalogEntry(key, value, this.#read);
    if ('invalid' in entry) {
      return { kind: 'rejected', key, reason: entry.invalid, removed: this.#remove(key) };
    }
    const held = this.#entries.get(key);
    if (held !== undefined && held.version === entry.version && held.hash === entry.hash) {
      return { kind: 'unchanged' };
    }
    if (held !== undefined) this.#remove(key);
    this.#link(entry);
    return { kind: held === undefined ? 'added' : 'updated', entry };
  }

  /** The entry stored under a KV key. */
  byKey(key: string): CatalogEntry | undefined {
    return this.#entries.get(key);
  }

  /** The resource called `name` in `scope`. */
  get(scope: CatalogScope, name: string): CatalogEntry | undefined {
    return this.#scopes.get(scopeKey(scope))?.get(name);
  }

  /** Every entry of `scope`, by name. */
  inScope(scope: CatalogScope): CatalogEntry[] {
    const entries = [...(this.#scopes.get(scopeKey(scope))?.values() ?? [])];
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  scopeSize(scope: CatalogScope): number {
    return this.#scopes.get(scopeKey(scope))?.size ?? 0;
  }

  /** The tenant's entries, every environment, by key. */
  ofTenant(tenant: string): CatalogEntry[] {
    const entries = [...(this.#tenants.get(tenant)?.values() ?? [])];
    return entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Tenants with at least one entry. */
  tenants(): string[] {
    return [...this.#tenants.keys()];
  }

  stop(): void {
    this.#watch?.stop();
  }

  /** Removes what `key` holds; false when it held nothing. */
  #remove(key: string): boolean {
    const held = this.#entries.get(key);
    if (held === undefined) return false;
    this.#entries.delete(key);
    unindex(this.#scopes, scopeKey(held), held.name);
    unindex(this.#tenants, held.tenant, held.key);
    return true;
  }

  #link(entry: CatalogEntry): void {
    this.#entries.set(entry.key, entry);
    index(this.#scopes, scopeKey(entry), entry.name, entry);
    index(this.#tenants, entry.tenant, entry.key, entry);
  }
}

function index<T>(map: Map<string, Map<string, T>>, outer: string, inner: string, value: T): void {
  let items = map.get(outer);
  if (items === undefined) map.set(outer, (items = new Map()));
  items.set(inner, value);
}

function unindex<T>(map: Map<string, Map<string, T>>, outer: string, inner: string): void {
  const items = map.get(outer);
  items?.delete(inner);
  if (items?.size === 0) map.delete(outer);
}

function scopeKey(scope: CatalogScope): string {
  return `${scope.tenant}\u0000${scope.environment}`;
}
