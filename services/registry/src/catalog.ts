import type { VersionRecord } from './records.js';
import { refOfId, resourceId, scopeKey } from './scope.js';
import type { Scope } from './scope.js';

/** What a List asks for within one scope. */
export interface CatalogQuery {
  /** Every label must match. */
  labels: Record<string, string>;
  type: string | undefined;
  includeDeleted: boolean;
  /** Names after this one (exclusive); undefined = from the start. */
  after: string | undefined;
  limit: number;
}

export interface CatalogPage {
  records: VersionRecord[];
  /** True when more matching resources follow the page. */
  more: boolean;
}

interface ScopeIndex {
  byName: Map<string, VersionRecord>;
  /** Names sorted, rebuilt lazily after a name is added. */
  sorted: string[] | undefined;
}

/**
 * The current version of every resource, in memory, grouped by scope and sorted by name: the
 * read model List is served from, so a page costs a binary search and a short walk instead
 * of a collection scan (MongoDB-compatible stores without usable indexes, FerretDB among
 * them, scan the whole collection for every filtered query). MongoDB stays the system of
 * record: the catalog is loaded from it, updated on every local change, refreshed on changes
 * other registry instances make (seen through the KV bucket), and reloaded by the reconciler.
 * Updates are monotonic: an older version never replaces a newer one.
 */
export class Catalog {
  readonly #scopes = new Map<string, ScopeIndex>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  get(id: string): VersionRecord | undefined {
    const ref = refOfId(id);
    return ref && this.#scopes.get(scopeKey(ref))?.byName.get(ref.name);
  }

  /** Records `record` unless the catalog already holds that resource at a newer version. */
  put(record: VersionRecord): boolean {
    const key = scopeKey(record);
    let index = this.#scopes.get(key);
    if (index === undefined) {
      index = { byName: new Map(), sorted: [] };
      this.#scopes.set(key, index);
    }
    const held = index.byName.get(record.name);
    if (held !== undefined && held.version >= record.version) return false;
    if (held === undefined) {
      index.sorted = undefined;
      this.#size += 1;
    }
    index.byName.set(record.name, record);
    return true;
  }

  /** Ids of every resource held. */
  *ids(): IterableIterator<string> {
    for (const index of this.#scopes.values()) {
      for (const record of index.byName.values()) yield resourceId(record);
    }
  }

  list(scope: Scope, query: CatalogQuery): CatalogPage {
    const index = this.#scopes.get(scopeKey(scope));
    if (index === undefined) return { records: [], more: false };
    index.sorted ??= [...index.byName.keys()].sort();
    const names = index.sorted;
    const records: VersionRecord[] = [];
    for (
      let i = query.after === undefined ? 0 : firstAfter(names, query.after);
      i < names.length;
      i++
    ) {
      const record = index.byName.get(names[i] as string) as VersionRecord;
      if (!matches(record, query)) continue;
      if (records.length === query.limit) return { records, more: true };
      records.push(record);
    }
    return { records, more: false };
  }
}

function matches(record: VersionRecord, query: CatalogQuery): boolean {
  if (record.deleted && !query.includeDeleted) return false;
  if (query.type !== undefined && record.descriptor.spec.type !== query.type) return false;
  const labels = record.descriptor.metadata.labels ?? {};
  return Object.entries(query.labels).every(
    ([key, value]) => Object.hasOwn(labels, key) && labels[key] === value,
  );
}

/** Index of the first name strictly greater than `after`. */
function firstAfter(names: string[], after: string): number {
  let low = 0;
  let high = names.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((names[mid] as string) <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}
