/**
 * A follower of the memory service's `tollgate_memory` bucket: approved saved queries and
 * active preferred fields by owner, hot-reloaded. The synthesizer offers from it and the
 * executor runs from it, so both see the same items. An entry that does not read back (see
 * core's `parsePublishedMemoryItem`) is left out: fail closed.
 */
import { memoryOwnersOf, parseMemoryItemKey, parsePublishedMemoryItem } from '@tollgate/core';
import type { Principal, PublishedFieldPreference, PublishedSavedQuery } from '@tollgate/core';
import type { Logger } from '../log/logger.js';
import { watchBucket } from './kv.js';
import type { BucketWatch, KV } from './kv.js';

type Owned = Pick<Principal, 'tenant' | 'agent' | 'user'>;

export class MemoryProjection {
  /** Owner → saved-query name → entry. */
  readonly #savedQueries = new Map<string, Map<string, PublishedSavedQuery>>();
  /** Owner → tool → entry. */
  readonly #fields = new Map<string, Map<string, PublishedFieldPreference>>();
  readonly #logger: Logger;
  #watch: BucketWatch | undefined;
  #changes = 0;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** A projection following `kv`; resolves once the current entries are loaded. */
  static async follow(kv: KV, logger: Logger): Promise<MemoryProjection> {
    const projection = new MemoryProjection(logger);
    projection.#watch = await watchBucket(kv, (key, value) => projection.apply(key, value), logger);
    await projection.#watch.ready;
    return projection;
  }

  /** Bumped on every applied change (for caches keyed on the projection's state). */
  get changes(): number {
    return this.#changes;
  }

  /** Applies one KV entry (`value` undefined: deleted). */
  apply(key: string, value: Uint8Array | undefined): void {
    this.#changes += 1;
    const named = parseMemoryItemKey(key);
    if (named === undefined) {
      this.#logger.warn({ key }, 'memory entry under an unknown key; ignored');
      return;
    }
    const item = value === undefined ? undefined : parsePublishedMemoryItem(key, value);
    if (item !== undefined && 'invalid' in item) {
      this.#logger.error({ key, problem: item.invalid }, 'memory entry is unusable; ignored');
    }
    const usable = item === undefined || 'invalid' in item ? undefined : item;
    const owner = ownerOf(named);
    if (named.kind === 'saved_query') {
      update(
        this.#savedQueries,
        owner,
        named.name,
        usable?.kind === 'saved_query' ? usable : undefined,
      );
    } else {
      update(
        this.#fields,
        owner,
        named.name,
        usable?.kind === 'preferred_fields' ? usable : undefined,
      );
    }
  }

  /** The principal's saved queries by name; its user's own shadow the agent's of the same name. */
  savedQueries(principal: Owned): Map<string, PublishedSavedQuery> {
    const byName = new Map<string, PublishedSavedQuery>();
    for (const owner of memoryOwnersOf(principal)) {
      for (const [name, query] of this.#savedQueries.get(ownerOf(owner)) ?? []) {
        if (!byName.has(name)) byName.set(name, query);
      }
    }
    return byName;
  }

  /** One of the principal's saved queries by name. */
  savedQuery(principal: Owned, name: string): PublishedSavedQuery | undefined {
    return firstOf(this.#savedQueries, principal, name);
  }

  /** The fields the principal usually asks of `tool` ([] when none): its user's, else the agent's. */
  preferredFields(principal: Owned, tool: string): string[] {
    return firstOf(this.#fields, principal, tool)?.fields ?? [];
  }

  stop(): void {
    this.#watch?.stop();
  }
}

/** The entry of the most specific owner of `principal` that has one under `name`. */
function firstOf<T>(
  index: Map<string, Map<string, T>>,
  principal: Owned,
  name: string,
): T | undefined {
  for (const owner of memoryOwnersOf(principal)) {
    const found = index.get(ownerOf(owner))?.get(name);
    if (found !== undefined) return found;
  }
  return undefined;
}

function update<T>(
  index: Map<string, Map<string, T>>,
  owner: string,
  name: string,
  item: T | undefined,
): void {
  let items = index.get(owner);
  if (item === undefined) {
    items?.delete(name);
    if (items?.size === 0) index.delete(owner);
    return;
  }
  if (items === undefined) index.set(owner, (items = new Map()));
  items.set(name, item);
}

function ownerOf(owner: { tenant: string; agent: string; user: string }): string {
  return `${owner.tenant}\u0000${owner.agent}\u0000${owner.user}`;
}
