/**
 * The resources the synthesizer can offer, kept equal to the registry's KV projection, with a
 * recall index over them. Everything is partitioned by scope (tenant × environment): lookups
 * and searches name their scope and never see another's entries.
 */
import { RecallIndex, recallDocumentFromResource, toolName } from '@tollgate/core';
import type { Operation, RecallScope } from '@tollgate/core';
import { OPERATIONS, readPublished } from './published.js';
import type { CatalogEntry } from './published.js';

/** What applying one KV value did. */
export type CatalogChange =
  | { kind: 'added' | 'updated'; entry: CatalogEntry }
  | { kind: 'removed'; key: string }
  | { kind: 'unchanged' }
  | { kind: 'rejected'; key: string; reason: string; removed: boolean };

/** A ranked resource of a search. */
export interface CatalogHit {
  entry: CatalogEntry;
  score: number;
}

export interface CatalogSearch {
  topK: number;
  boosts?: Record<string, number>;
  /** Entries a hit must pass; called lazily, best candidates first. */
  filter?: (entry: CatalogEntry) => boolean;
}

interface Scope {
  byName: Map<string, CatalogEntry>;
  byTool: Map<string, { entry: CatalogEntry; operation: Operation }>;
}

export class ResourceCatalog {
  readonly #entries = new Map<string, CatalogEntry>();
  readonly #scopes = new Map<string, Scope>();
  readonly #recall = new RecallIndex();

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
    const entry = readPublished(key, value);
    if ('invalid' in entry) {
      return { kind: 'rejected', key, reason: entry.invalid, removed: this.#remove(key) };
    }
    const held = this.#entries.get(key);
    if (held !== undefined && held.version === entry.version && held.hash === entry.hash) {
      return { kind: 'unchanged' };
    }
    if (held !== undefined) this.#unlink(held);
    this.#link(entry);
    return { kind: held === undefined ? 'added' : 'updated', entry };
  }

  /** The entry stored under a KV key. */
  byKey(key: string): CatalogEntry | undefined {
    return this.#entries.get(key);
  }

  get(scope: RecallScope, name: string): CatalogEntry | undefined {
    return this.#scopes.get(scopeKey(scope))?.byName.get(name);
  }

  /** The resource one of whose tools is called `tool` in `scope`, and that tool's operation. */
  byToolName(
    scope: RecallScope,
    tool: string,
  ): { entry: CatalogEntry; operation: Operation } | undefined {
    return this.#scopes.get(scopeKey(scope))?.byTool.get(tool);
  }

  /** Every entry of `scope`, by name. */
  inScope(scope: RecallScope): CatalogEntry[] {
    const entries = [...(this.#scopes.get(scopeKey(scope))?.byName.values() ?? [])];
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  scopeSize(scope: RecallScope): number {
    return this.#scopes.get(scopeKey(scope))?.byName.size ?? 0;
  }

  /** Entries of `scope` ranked by relevance to `task`, best first; only entries that match. */
  search(scope: RecallScope, task: string, options: CatalogSearch): CatalogHit[] {
    const { topK, boosts, filter } = options;
    const hits = this.#recall.search(task, {
      scope,
      topK,
      ...(boosts !== undefined ? { boosts } : {}),
      ...(filter !== undefined
        ? {
            filter: (doc) => {
              const entry = this.#entries.get(doc.id);
              return entry !== undefined && filter(entry);
            },
          }
        : {}),
    });
    return hits.flatMap((hit) => {
      const entry = this.#entries.get(hit.id);
      return entry === undefined ? [] : [{ entry, score: hit.score }];
    });
  }

  #remove(key: string): boolean {
    const held = this.#entries.get(key);
    if (held === undefined) return false;
    this.#unlink(held);
    return true;
  }

  #link(entry: CatalogEntry): void {
    this.#entries.set(entry.key, entry);
    const key = scopeKey(entry);
    let scope = this.#scopes.get(key);
    if (scope === undefined)
      this.#scopes.set(key, (scope = { byName: new Map(), byTool: new Map() }));
    scope.byName.set(entry.name, entry);
    for (const operation of OPERATIONS) {
      scope.byTool.set(toolName(entry.name, operation), { entry, operation });
    }
    this.#recall.upsert(recallDocumentFromResource(entry.resource, entry.key));
  }

  #unlink(entry: CatalogEntry): void {
    this.#entries.delete(entry.key);
    this.#recall.remove(entry.key);
    const key = scopeKey(entry);
    const scope = this.#scopes.get(key);
    if (scope === undefined) return;
    scope.byName.delete(entry.name);
    for (const operation of OPERATIONS) scope.byTool.delete(toolName(entry.name, operation));
    if (scope.byName.size === 0) this.#scopes.delete(key);
  }
}

function scopeKey(scope: RecallScope): string {
  return `${scope.tenant}\u0000${scope.environment}`;
}
