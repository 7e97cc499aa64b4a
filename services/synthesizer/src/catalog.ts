/**
 * The resources the synthesizer can offer: kit's catalog of the registry's KV projection, with
 * a recall index and the tool names of every resource on top. Lookups and searches name their
 * scope (tenant × environment) and never see another's entries.
 */
import { RecallIndex, recallDocumentFromResource, toolName } from '@tollgate/core';
import type { Operation, RecallScope } from '@tollgate/core';
import { ResourceCatalog } from '@tollgate/kit';
import type { CatalogChange, CatalogEntry } from '@tollgate/kit';

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

export class ToolCatalog extends ResourceCatalog {
  /** Scope → tool name → its resource and operation. */
  readonly #tools = new Map<string, Map<string, { entry: CatalogEntry; operation: Operation }>>();
  readonly #recall = new RecallIndex();

  override apply(key: string, value: Uint8Array | undefined): CatalogChange {
    const held = this.byKey(key);
    const change = super.apply(key, value);
    if (change.kind === 'unchanged') return change;
    if (held !== undefined) this.#unlink(held);
    if (change.kind === 'added' || change.kind === 'updated') this.#link(change.entry);
    return change;
  }

  /** The resource one of whose tools is called `tool` in `scope`, and that tool's operation. */
  byToolName(
    scope: RecallScope,
    tool: string,
  ): { entry: CatalogEntry; operation: Operation } | undefined {
    return this.#tools.get(scopeKey(scope))?.get(tool);
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
              const entry = this.byKey(doc.id);
              return entry !== undefined && filter(entry);
            },
          }
        : {}),
    });
    return hits.flatMap((hit) => {
      const entry = this.byKey(hit.id);
      return entry === undefined ? [] : [{ entry, score: hit.score }];
    });
  }

  #link(entry: CatalogEntry): void {
    const key = scopeKey(entry);
    let tools = this.#tools.get(key);
    if (tools === undefined) this.#tools.set(key, (tools = new Map()));
    for (const { name: operation } of entry.operations) {
      tools.set(toolName(entry.name, operation), { entry, operation });
    }
    this.#recall.upsert(recallDocumentFromResource(entry.resource, entry.key));
  }

  #unlink(entry: CatalogEntry): void {
    this.#recall.remove(entry.key);
    const key = scopeKey(entry);
    const tools = this.#tools.get(key);
    if (tools === undefined) return;
    for (const { name } of entry.operations) tools.delete(toolName(entry.name, name));
    if (tools.size === 0) this.#tools.delete(key);
  }
}

function scopeKey(scope: RecallScope): string {
  return `${scope.tenant}\u0000${scope.environment}`;
}
