/**
 * Synthesized tools keyed by (resource version × permission-set hash), renderings per format
 * made on first use. Bounded, least recently used first out; a resource's entries are dropped
 * as soon as it changes, so old versions never linger behind new ones.
 */
import type { ToolDefinition as WireTool } from '@tollgate/contracts/tools/v1';
import {
  compileToolValidator,
  narrowToDeclared,
  permissionSetHash,
  synthesizeTools,
} from '@tollgate/core';
import type { PermissionSet, ToolDefinition, ToolFormat, ToolValidator } from '@tollgate/core';
import { resourceKinds } from '@tollgate/kinds';
import type { CatalogEntry } from '@tollgate/kit';
import { wireTool } from './formats.js';

/** The tools one principal's permissions give on one resource version. */
export interface ToolSet {
  readonly entry: CatalogEntry;
  readonly tools: readonly ToolDefinition[];
  /** The tools as the contract carries them, rendered for `format`. */
  wire(format: ToolFormat): readonly WireTool[];
  /** The compiled validator of `tools[index]`, compiled on first use (saved queries fit it). */
  validator(index: number): ToolValidator;
}

export class ToolSetCache {
  readonly #maxEntries: number;
  readonly #sets = new Map<string, ToolSet>();
  readonly #keysByResource = new Map<string, Set<string>>();
  readonly #hashes = new WeakMap<PermissionSet, string>();

  constructor(maxEntries = 5_000) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive integer; found ${maxEntries}`);
    }
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#sets.size;
  }

  /**
   * The tools of `entry` under `permissions`. Permissions naming fields the version does not
   * declare (a bundle compiled before the descriptor changed) are narrowed to declared ones.
   */
  toolSet(entry: CatalogEntry, permissions: PermissionSet): ToolSet {
    const key = `${entry.key}\u0000${entry.version}\u0000${entry.hash}\u0000${this.#hash(permissions)}`;
    const cached = this.#sets.get(key);
    if (cached !== undefined) {
      this.#sets.delete(key);
      this.#sets.set(key, cached);
      return cached;
    }
    const kind = resourceKinds.get(entry.kind);
    const set = toolSet(
      entry,
      synthesizeTools(entry.resource, declaredOnly(entry, permissions), kind),
    );
    this.#sets.set(key, set);
    let keys = this.#keysByResource.get(entry.key);
    if (keys === undefined) this.#keysByResource.set(entry.key, (keys = new Set()));
    keys.add(key);
    if (this.#sets.size > this.#maxEntries) this.#evictOldest();
    return set;
  }

  /** Drops every tool set of the resource stored under `resourceKey`. */
  purge(resourceKey: string): void {
    for (const key of this.#keysByResource.get(resourceKey) ?? []) this.#sets.delete(key);
    this.#keysByResource.delete(resourceKey);
  }

  clear(): void {
    this.#sets.clear();
    this.#keysByResource.clear();
  }

  #hash(permissions: PermissionSet): string {
    let hash = this.#hashes.get(permissions);
    if (hash === undefined) {
      hash = permissionSetHash(permissions);
      this.#hashes.set(permissions, hash);
    }
    return hash;
  }

  #evictOldest(): void {
    const oldest = this.#sets.entries().next();
    if (oldest.done === true) return;
    const [key, set] = oldest.value;
    this.#sets.delete(key);
    const keys = this.#keysByResource.get(set.entry.key);
    keys?.delete(key);
    if (keys?.size === 0) this.#keysByResource.delete(set.entry.key);
  }
}

function toolSet(entry: CatalogEntry, tools: ToolDefinition[]): ToolSet {
  const rendered = new Map<ToolFormat, readonly WireTool[]>();
  const validators = new Map<number, ToolValidator>();
  return {
    entry,
    tools,
    wire(format) {
      let list = rendered.get(format);
      if (list === undefined) {
        list = Object.freeze(tools.map((tool) => wireTool(tool, format, entry)));
        rendered.set(format, list);
      }
      return list;
    },
    validator(index) {
      let validator = validators.get(index);
      if (validator === undefined) {
        const tool = tools[index];
        if (tool === undefined) throw new RangeError(`no tool at index ${index}`);
        validator = compileToolValidator(tool);
        validators.set(index, validator);
      }
      return validator;
    },
  };
}

/** `permissions` without fields the resource version does not declare (core's one projection). */
export function declaredOnly(entry: CatalogEntry, permissions: PermissionSet): PermissionSet {
  return narrowToDeclared(permissions, entry.resource);
}
