/**
 * Compiled validators keyed by (resource identity and version × normalized permission set ×
 * synthesis options): the executor synthesizes and compiles a principal's tools once, then
 * validates every call against exactly the schemas the synthesizer handed out. Bounded, least
 * recently used first out.
 */
import { normalizePermissions } from '../synthesis/permissions.js';
import { resolveOptions } from '../synthesis/limits.js';
import type { SynthesisOptions } from '../synthesis/limits.js';
import { synthesizeTools } from '../synthesis/synthesize.js';
import { canonicalJson } from '../canonical.js';
import type { KindRegistry } from '../kind/registry.js';
import { compileToolValidator } from './validator.js';
import type { ToolValidator } from './validator.js';
import type { PermissionSet, ToolDefinition, VersionedResource } from './types.js';

/** The tools of one (resource version × permission set), validators compiled on first use. */
export interface CompiledToolSet {
  readonly key: string;
  readonly tools: readonly ToolDefinition[];
  /** The validator of the named tool; undefined when the set has no such tool. */
  validator(toolName: string): ToolValidator | undefined;
}

export interface ToolValidatorCacheOptions {
  /** The kinds tools are synthesized with (the process's one list). */
  kinds: Pick<KindRegistry, 'get'>;
  /** Most tool sets kept (default 1024). */
  maxEntries?: number;
}

export class ToolValidatorCache {
  readonly #maxEntries: number;
  readonly #kinds: Pick<KindRegistry, 'get'>;
  readonly #sets = new Map<string, CompiledToolSet>();

  constructor(options: ToolValidatorCacheOptions) {
    this.#kinds = options.kinds;
    const max = options.maxEntries ?? 1024;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new RangeError(`maxEntries must be a positive integer; found ${max}`);
    }
    this.#maxEntries = max;
  }

  /** Tool sets currently cached. */
  get size(): number {
    return this.#sets.size;
  }

  /**
   * The compiled tool set of `resource` (identified by tenant, environment, name and version,
   * which the registry never reuses for different content) for `permissions`.
   */
  toolSet(
    resource: VersionedResource,
    permissions: PermissionSet,
    options?: SynthesisOptions,
  ): CompiledToolSet {
    const { tenant, environment, name } = resource.metadata;
    const key = JSON.stringify([
      tenant,
      environment,
      name,
      resource.version,
      normalizePermissions(permissions),
      options === undefined ? null : canonicalJson(resolveOptions(options)),
    ]);
    const cached = this.#sets.get(key);
    if (cached !== undefined) {
      this.#sets.delete(key);
      this.#sets.set(key, cached);
      return cached;
    }
    const kind = this.#kinds.get(resource.spec.type);
    const set = compileSet(key, synthesizeTools(resource, permissions, kind, options));
    this.#sets.set(key, set);
    if (this.#sets.size > this.#maxEntries) {
      const oldest = this.#sets.keys().next();
      if (oldest.done !== true) this.#sets.delete(oldest.value);
    }
    return set;
  }

  /** Shorthand for `toolSet(...).validator(toolName)`. */
  validatorFor(
    resource: VersionedResource,
    permissions: PermissionSet,
    toolName: string,
    options?: SynthesisOptions,
  ): ToolValidator | undefined {
    return this.toolSet(resource, permissions, options).validator(toolName);
  }

  clear(): void {
    this.#sets.clear();
  }
}

function compileSet(key: string, tools: ToolDefinition[]): CompiledToolSet {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const compiled = new Map<string, ToolValidator>();
  return {
    key,
    tools,
    validator(toolName) {
      let validator = compiled.get(toolName);
      if (validator !== undefined) return validator;
      const tool = byName.get(toolName);
      if (tool === undefined) return undefined;
      validator = compileToolValidator(tool);
      compiled.set(toolName, validator);
      return validator;
    },
  };
}
