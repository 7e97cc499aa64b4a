/**
 * A follower of the memory service's `tollgate_memory` bucket: approved saved queries and
 * active preferred fields by owner, hot-reloaded. The synthesizer offers from it and the
 * executor runs from it, so both see the same items. An entry that does not read back (see
 * core's `parsePublishedMemoryItem`) is left out: fail closed.
 */
import { memoryOwnersOf, memoryUserToken, parsePublishedMemoryItem } from '@tollgate/core';
import type {
  Principal,
  PublishedFieldPreference,
  PublishedMemoryItem,
  PublishedSavedQuery,
} from '@tollgate/core';
import type { Logger } from '../log/logger.js';
import { watchBucket } from './kv.js';
import type { BucketWatch, KV } from './kv.js';

type Owned = Pick<Principal, 'tenant' | 'agent' | 'user'>;

export class MemoryProjection {
  /** Owner prefix (`sq.<tenant>.<agent>.<user>` minus the kind) → key → item. */
  readonly #savedQueries = new Map<string, Map<string, PublishedSavedQuery>>();
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
    const owner = ownerOfKey(key);
    if (owner === undefined) {
      this.#logger.warn({ key }, 'memory entry under an unknown key; ignored');
      return;
    }
    const item = value === undefined ? undefined : parsePublishedMemoryItem(key, value);
    if (item !== undefined && 'invalid' in item) {
      this.#logger.error({ key, problem: item.invalid }, 'memory entry is unusable; ignored');
    }
    const usable = item === undefined || 'invalid' in item ? undefined : item;
    if (key.startsWith('sq.')) {
      update(this.#savedQueries, owner, key, usable?.kind === 'saved_query' ? usable : undefined);
    } else {
      update(this.#fields, owner, key, usable?.kind === 'preferred_fields' ? usable : undefined);
    }
  }

  /** The principal's saved queries by name; its user's own shadow the agent's of the same name. */
  savedQueries(principal: Owned): Map<string, PublishedSavedQuery> {
    const byName = new Map<string, PublishedSavedQuery>();
    for (const owner of memoryOwnersOf(principal)) {
      for (const query of this.#savedQueries.get(ownerPrefix(owner))?.values() ?? []) {
        if (!byName.has(query.name)) byName.set(query.name, query);
      }
    }
    return byName;
  }

  /** One of the principal's saved queries by name. */
  savedQuery(principal: Owned, name: string): PublishedSavedQuery | undefined {
    for (const owner of memoryOwnersOf(principal)) {
      for (const query of this.#savedQueries.get(ownerPrefix(owner))?.values() ?? []) {
        if (query.name === name) return query;
      }
    }
    return undefined;
  }

  /** The fields the principal usually asks of `tool` ([] when none): its user's, else the agent's. */
  preferredFields(principal: Owned, tool: string): string[] {
    for (const owner of memoryOwnersOf(principal)) {
      for (const preference of this.#fields.get(ownerPrefix(owner))?.values() ?? []) {
        if (preference.tool === tool) return preference.fields;
      }
    }
    return [];
  }

  stop(): void {
    this.#watch?.stop();
  }
}

function update<T extends PublishedMemoryItem>(
  index: Map<string, Map<string, T>>,
  owner: string,
  key: string,
  item: T | undefined,
): void {
  let items = index.get(owner);
  if (item === undefined) {
    items?.delete(key);
    if (items?.size === 0) index.delete(owner);
    return;
  }
  if (items === undefined) index.set(owner, (items = new Map()));
  items.set(key, item);
}

/** `<tenant>.<agent>.<user token>` of a key `sq|pf.<tenant>.<agent>.<user token>.<name>`. */
function ownerOfKey(key: string): string | undefined {
  const parts = key.split('.');
  if (parts.length !== 5 || (parts[0] !== 'sq' && parts[0] !== 'pf')) return undefined;
  return parts.slice(1, 4).join('.');
}

function ownerPrefix(owner: { tenant: string; agent: string; user: string }): string {
  return `${owner.tenant}.${owner.agent}.${memoryUserToken(owner.user)}`;
}
