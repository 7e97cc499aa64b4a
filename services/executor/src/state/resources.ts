import { parsePublishedResource, validateDescriptor } from '@tollgate/core';
import type { PublishedResource } from '@tollgate/core';
import { resourceKey, watchBucket } from '@tollgate/kit';
import type { BucketWatch, KV, Logger } from '@tollgate/kit';

const RESOURCE_NAME = /^[a-z][a-z0-9_]{2,62}$/;

/**
 * The current version of every resource, hot-reloaded from the registry's KV projection
 * (`tollgate_resources`, key `<tenant>.<environment>.<name>`). A changed descriptor applies to
 * the next call; an entry that cannot be read back — not a PublishedResource, under the wrong
 * key, or a descriptor that fails strict validation (as the synthesizer checks it too) — makes
 * its resource unavailable (fail closed).
 */
export class ResourceCatalog {
  readonly #resources = new Map<string, PublishedResource>();
  readonly #logger: Logger;
  #watch: BucketWatch | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** A catalog following `kv`; resolves once the current entries are loaded. */
  static async follow(kv: KV, logger: Logger): Promise<ResourceCatalog> {
    const catalog = new ResourceCatalog(logger);
    catalog.#watch = await watchBucket(kv, (key, value) => catalog.apply(key, value), logger);
    await catalog.#watch.ready;
    return catalog;
  }

  /** Applies one KV entry (`value` undefined: deleted). */
  apply(key: string, value: Uint8Array | undefined): void {
    if (value === undefined) {
      this.#resources.delete(key);
      return;
    }
    const parsed = parsePublishedResource(value);
    const problem = 'invalid' in parsed ? parsed.invalid : mismatch(key, parsed);
    if (problem !== undefined || 'invalid' in parsed) {
      this.#resources.delete(key);
      this.#logger.error(
        { key, problem },
        'resource entry is unusable; the resource is unavailable',
      );
      return;
    }
    this.#resources.set(key, parsed);
  }

  lookup(tenant: string, environment: string, name: string): PublishedResource | undefined {
    if (!RESOURCE_NAME.test(name)) return undefined;
    return this.#resources.get(resourceKey(tenant, environment, name));
  }

  stop(): void {
    this.#watch?.stop();
  }
}

/** Why an entry does not belong under its key, if it does not. */
function mismatch(key: string, resource: PublishedResource): string | undefined {
  const { tenant, environment, name } = resource.descriptor.metadata;
  let expected: string;
  try {
    expected = resourceKey(resource.tenant, resource.environment, resource.name);
  } catch (err) {
    return (err as Error).message;
  }
  if (expected !== key) return `entry names ${expected}, stored under ${key}`;
  if (tenant !== resource.tenant || environment !== resource.environment || name !== resource.name)
    return 'descriptor metadata does not match the entry';
  const checked = validateDescriptor(resource.descriptor);
  if (!checked.ok) {
    const first = checked.problems[0];
    return `descriptor is invalid: ${first?.path || '(root)'}: ${first?.message} (${checked.problems.length} problems)`;
  }
  return undefined;
}
