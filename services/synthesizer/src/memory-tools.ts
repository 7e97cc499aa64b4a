/**
 * What a principal's memory adds to the tools it is offered: each approved saved query as a
 * narrower tool right after the tool it narrows, and preferred fields as the documented default
 * of a tool's `fields`. Both come from the memory bucket (kit's `MemoryProjection`), the same
 * entries the executor runs them from. Narrowed and annotated tools depend only on (base tool
 * version × saved-query revision, or × preferred fields), so each is made once and its
 * renderings cached; the shared per-(version × permissions) lists are never changed.
 */
import type { ToolDefinition as WireTool } from '@tollgate/contracts/tools/v1';
import { annotateDefaultFields, defaultFieldsFor, savedQueryTool, tokenize } from '@tollgate/core';
import type {
  Principal,
  PublishedSavedQuery,
  SavedQueryToolDefinition,
  ToolDefinition,
  ToolFormat,
} from '@tollgate/core';
import type { CatalogEntry, Logger, MemoryProjection } from '@tollgate/kit';
import { wireTool } from './formats.js';
import type { ToolSet } from './tool-cache.js';

/** A saved query's narrower tool, rendered per format on first use. */
export interface NarrowedTool {
  readonly tool: SavedQueryToolDefinition;
  wire(format: ToolFormat): WireTool;
}

/** One principal's memory, read once per request. */
export interface PrincipalMemory {
  /** Its saved queries by name (its user's own shadow the agent's of the same name). */
  readonly savedQueries: ReadonlyMap<string, PublishedSavedQuery>;
  /** The same, grouped by the tool each narrows, by name within a group. */
  readonly byBaseTool: ReadonlyMap<string, readonly PublishedSavedQuery[]>;
  /** The fields it usually asks of `tool` ([] when none). */
  preferredFields(tool: string): string[];
  /** A tool name one of the scope's resources already uses (a saved query cannot take it). */
  taken(toolName: string): boolean;
}

/** Narrowed and annotated tools kept (each a few KB). */
const DEFAULT_MAX_ENTRIES = 10_000;

type Narrowing = NarrowedTool | { unusable: string };

interface Annotated {
  /** Undefined: no preferred field is one the tool may return; the base tool as it is. */
  readonly tool: ToolDefinition | undefined;
  readonly rendered: Map<ToolFormat, WireTool>;
}

export class MemoryTools {
  readonly projection: MemoryProjection;
  readonly #logger: Logger;
  readonly #narrowed: Lru<Narrowing>;
  readonly #annotated: Lru<Annotated>;
  /** Collisions already reported, so each is logged once. */
  readonly #warned: Lru<true>;
  readonly #terms = new WeakMap<PublishedSavedQuery, ReadonlySet<string>>();

  constructor(projection: MemoryProjection, logger: Logger, maxEntries = DEFAULT_MAX_ENTRIES) {
    this.projection = projection;
    this.#logger = logger;
    this.#narrowed = new Lru(maxEntries);
    this.#annotated = new Lru(maxEntries);
    this.#warned = new Lru(maxEntries);
  }

  /** The principal's memory; `taken` says which tool names the principal's scope uses. */
  of(principal: Principal, taken: (toolName: string) => boolean): PrincipalMemory {
    const savedQueries = this.projection.savedQueries(principal);
    const byBaseTool = new Map<string, PublishedSavedQuery[]>();
    for (const name of [...savedQueries.keys()].sort()) {
      const query = savedQueries.get(name) as PublishedSavedQuery;
      const group = byBaseTool.get(query.tool);
      if (group === undefined) byBaseTool.set(query.tool, [query]);
      else group.push(query);
    }
    return {
      savedQueries,
      byBaseTool,
      preferredFields: (tool) => this.projection.preferredFields(principal, tool),
      taken,
    };
  }

  /**
   * The set's tools as offered to the principal: each base tool (with its default fields
   * documented when the principal has preferred ones), followed by its usable saved queries.
   * The set's own list when memory adds nothing to it.
   */
  offered(set: ToolSet, format: ToolFormat, memory: PrincipalMemory): readonly WireTool[] {
    const base = set.wire(format);
    let offered: WireTool[] | undefined;
    set.tools.forEach((tool, index) => {
      const baseWire = base[index] as WireTool;
      const fields = memory.preferredFields(tool.name);
      const queries = memory.byBaseTool.get(tool.name);
      if (fields.length === 0 && queries === undefined) {
        offered?.push(baseWire);
        return;
      }
      offered ??= base.slice(0, index);
      offered.push(fields.length === 0 ? baseWire : this.#withDefaults(set, index, fields, format));
      for (const query of queries ?? []) {
        const narrowed = this.narrowed(set, index, query, memory);
        if (narrowed !== undefined) offered.push(narrowed.wire(format));
      }
    });
    return offered ?? base;
  }

  /** `tools[index]` of the set as the principal is offered it (default fields documented). */
  baseTool(set: ToolSet, index: number, format: ToolFormat, memory: PrincipalMemory): WireTool {
    const tool = set.tools[index] as ToolDefinition;
    const fields = memory.preferredFields(tool.name);
    return fields.length === 0
      ? (set.wire(format)[index] as WireTool)
      : this.#withDefaults(set, index, fields, format);
  }

  /**
   * The saved query's narrower tool on top of `set.tools[index]`, or undefined when it cannot
   * be offered (its fixed part no longer fits, or its name is taken): logged once per version.
   */
  narrowed(
    set: ToolSet,
    index: number,
    query: PublishedSavedQuery,
    memory: PrincipalMemory,
  ): NarrowedTool | undefined {
    const base = set.tools[index] as ToolDefinition;
    const key = [base.version, query.id, query.revision, query.contentHash, query.name].join('\0');
    let narrowing = this.#narrowed.get(key);
    if (narrowing === undefined) {
      narrowing = this.#narrow(set, index, query);
      this.#narrowed.set(key, narrowing);
      if ('unusable' in narrowing) this.#reportUnusable(query, base, narrowing.unusable);
    }
    if ('unusable' in narrowing) return undefined;
    if (memory.taken(narrowing.tool.name)) {
      const scope = `${base.resource.tenant}\0${base.resource.environment}\0${key}`;
      if (this.#warned.get(scope) === undefined) {
        this.#warned.set(scope, true);
        this.#reportUnusable(
          query,
          base,
          `its tool name ${narrowing.tool.name} is a resource's tool in ${base.resource.environment}`,
        );
      }
      return undefined;
    }
    return narrowing;
  }

  /**
   * Saved queries whose name and description share the task's terms (at least two, or the
   * task's only one): their resources are relevant even when the task's words missed them.
   */
  matching(memory: PrincipalMemory, task: string): PublishedSavedQuery[] {
    if (memory.savedQueries.size === 0) return [];
    const wanted = new Set(tokenize(task));
    const needed = Math.min(2, wanted.size);
    if (needed === 0) return [];
    return [...memory.savedQueries.values()].filter((query) => {
      const terms = this.#termsOf(query);
      let shared = 0;
      for (const term of wanted) if (terms.has(term) && ++shared >= needed) return true;
      return false;
    });
  }

  #narrow(set: ToolSet, index: number, query: PublishedSavedQuery): Narrowing {
    let made: ReturnType<typeof savedQueryTool>;
    try {
      made = savedQueryTool(set.validator(index), query);
    } catch (err) {
      return { unusable: `it could not be checked: ${(err as Error).message}` };
    }
    if ('unusable' in made) return made;
    return narrowedTool(made, set.entry);
  }

  #withDefaults(set: ToolSet, index: number, fields: string[], format: ToolFormat): WireTool {
    const tool = set.tools[index] as ToolDefinition;
    const key = `${tool.version}\0${fields.join('\0')}`;
    let annotated = this.#annotated.get(key);
    if (annotated === undefined) {
      const defaults = defaultFieldsFor(tool, fields);
      const changed = annotateDefaultFields(tool, defaults);
      annotated = { tool: changed === tool ? undefined : changed, rendered: new Map() };
      this.#annotated.set(key, annotated);
    }
    if (annotated.tool === undefined) return set.wire(format)[index] as WireTool;
    let wire = annotated.rendered.get(format);
    if (wire === undefined) {
      wire = wireTool(annotated.tool, format, set.entry);
      annotated.rendered.set(format, wire);
    }
    return wire;
  }

  #reportUnusable(query: PublishedSavedQuery, base: ToolDefinition, reason: string): void {
    this.#logger.warn(
      {
        tenant: query.tenant,
        agent: query.agent,
        savedQuery: query.name,
        id: query.id,
        revision: query.revision,
        baseTool: base.name,
        baseVersion: base.version,
        reason,
      },
      'saved query not offered',
    );
  }

  #termsOf(query: PublishedSavedQuery): ReadonlySet<string> {
    let terms = this.#terms.get(query);
    if (terms === undefined) {
      terms = new Set(tokenize(`${query.name} ${query.description}`));
      this.#terms.set(query, terms);
    }
    return terms;
  }
}

function narrowedTool(tool: SavedQueryToolDefinition, entry: CatalogEntry): NarrowedTool {
  const rendered = new Map<ToolFormat, WireTool>();
  return {
    tool,
    wire(format) {
      let wire = rendered.get(format);
      if (wire === undefined) {
        wire = wireTool(tool, format, entry);
        rendered.set(format, wire);
      }
      return wire;
    },
  };
}

/** A bounded map, least recently used first out. */
class Lru<V> {
  readonly #max: number;
  readonly #items = new Map<string, V>();

  constructor(max: number) {
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new RangeError(`maxEntries must be a positive integer; found ${max}`);
    }
    this.#max = max;
  }

  get(key: string): V | undefined {
    const value = this.#items.get(key);
    if (value !== undefined) {
      this.#items.delete(key);
      this.#items.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.#items.set(key, value);
    if (this.#items.size > this.#max) {
      const oldest = this.#items.keys().next();
      if (oldest.done !== true) this.#items.delete(oldest.value);
    }
  }
}
