import { parsePublishedResource } from '@tollgate/core';
import type { PublishedResource } from '@tollgate/core';
import { watchBucket } from '@tollgate/kit';
import type { BucketWatch, KV, Logger } from '@tollgate/kit';

/**
 * The current resources of every tenant, mirrored from the registry's `tollgate_resources` KV
 * bucket (key `<tenant>.<environment>.<name>`), so that resource `access` blocks become part of
 * each tenant's bundle. An entry that is not a valid `PublishedResource`, or whose value does
 * not match its key, is dropped (its resource is then unknown to the bundle: denied).
 */
export class ResourceCatalog {
  readonly #byTenant = new Map<string, Map<string, PublishedResource>>();
  readonly #logger: Logger;
  #watch: BucketWatch | undefined;
  #announce = false;
  #onChange: (tenant: string) => void = () => {};

  private constructor(logger: Logger) {
    this.#logger = logger;
  }

  /**
   * Starts watching and resolves once the bucket's current entries are loaded. `onChange` is
   * told about each later change, per tenant (not about the initial load).
   */
  static async start(
    kv: KV,
    logger: Logger,
    onChange: (tenant: string) => void,
  ): Promise<ResourceCatalog> {
    const catalog = new ResourceCatalog(logger);
    catalog.#watch = await watchBucket(kv, (key, value) => catalog.#apply(key, value), logger);
    await catalog.#watch.ready;
    catalog.#onChange = onChange;
    catalog.#announce = true;
    return catalog;
  }

  /** The tenant's live resources, every environment, sorted by key. */
  resourcesOf(tenant: string): PublishedResource[] {
    const entries = this.#byTenant.get(tenant);
    if (entries === undefined) return [];
    return [...entries.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, r]) => r);
  }

  tenants(): string[] {
    return [...this.#byTenant.keys()];
  }

  stop(): void {
    this.#watch?.stop();
  }

  #apply(key: string, value: Uint8Array | undefined): void {
    const parts = key.split('.');
    if (parts.length !== 3 || parts.some((p) => p === '')) {
      this.#logger.warn(
        { key },
        'resource bucket key is not <tenant>.<environment>.<name>; ignored',
      );
      return;
    }
    const [tenant, environment, name] = parts as [string, string, string];
    const entries = this.#byTenant.get(tenant) ?? new Map<string, PublishedResource>();
    let changed: boolean;
    if (value === undefined) {
      changed = entries.delete(key);
    } else {
      const parsed = parsePublishedResource(value);
      const problem =
        'invalid' in parsed
          ? parsed.invalid
          : parsed.tenant !== tenant || parsed.environment !== environment || parsed.name !== name
            ? 'its tenant, environment and name do not match its key'
            : parsed.descriptor.metadata?.tenant !== tenant
              ? 'its descriptor belongs to another tenant'
              : undefined;
      if (problem !== undefined) {
        this.#logger.warn({ key, problem }, 'resource entry is unusable; left out of the bundle');
        changed = entries.delete(key);
      } else {
        entries.set(key, parsed as PublishedResource);
        changed = true;
      }
    }
    if (entries.size === 0) this.#byTenant.delete(tenant);
    else this.#byTenant.set(tenant, entries);
    if (changed && this.#announce) this.#onChange(tenant);
  }
}
