/**
 * The synthesizer: which tools a principal is offered, ranked by relevance to a task. Tools are
 * projections of (current resource version × the principal's permission set from its tenant's
 * policy bundle), synthesized once per pair and cached. Transport-free: the gRPC and NATS
 * handlers authenticate and validate, then call this.
 */
import type { ToolDefinition as WireTool } from '@tollgate/contracts/tools/v1';
import {
  TollgateError,
  UNRESTRICTED_CREDENTIAL_NAMESPACES,
  checkCredentialNamespace,
  savedQueryNameOf,
} from '@tollgate/core';
import type { CredentialNamespaces, Principal, RecallScope, ToolFormat } from '@tollgate/core';
import { MemoryProjection, parsePolicyBundleKey } from '@tollgate/kit';
import type { CatalogChange, CatalogEntry, Logger } from '@tollgate/kit';
import { PolicyBundles } from './bundles.js';
import type { BundleChange, PrincipalAccess } from './bundles.js';
import { ToolCatalog } from './catalog.js';
import { checkReplySize, encodedSize } from './encoding.js';
import type { ReplyLimit } from './encoding.js';
import { noListings } from './listings.js';
import type { ListingRecorder } from './listings.js';
import { MemoryTools } from './memory-tools.js';
import type { PrincipalMemory } from './memory-tools.js';
import { noPreferences } from './preferences.js';
import type { PreferenceSource } from './preferences.js';
import { DEFAULT_TOP_K } from './requests.js';
import { ToolSetCache } from './tool-cache.js';
import type { ToolSet } from './tool-cache.js';

export interface SynthesizerDeps {
  logger: Logger;
  /** Where ranking boosts come from (default: none). */
  preferences?: PreferenceSource;
  /** Where listings with a session id are recorded (default: nowhere). */
  listings?: ListingRecorder;
  /** Tool sets kept synthesized (default 5 000). */
  toolCacheSize?: number;
  /** Saved queries and preferred fields (default: an empty projection, i.e. none). */
  memory?: MemoryProjection;
  /**
   * The credential namespaces the executor enforces (default: unrestricted). A resource whose
   * credential reference lies outside its tenant's namespace cannot run, so it is not offered.
   */
  credentialNamespaces?: CredentialNamespaces;
}

/** A validated listing request for a resolved principal. */
export interface ListToolsInput {
  principal: Principal;
  /** Empty: every permitted tool, by resource name. */
  task: string;
  format: ToolFormat;
  /** Resources to return; 0 = 10 with a task, all without. */
  topK: number;
  /** Empty: the listing is not recorded. */
  sessionId: string;
  /** The caller's own token, to read its preferences with; absent when acting for another. */
  token?: string;
  /** Refuse (INVALID_ARGUMENT) as soon as the encoded tools outgrow what the reply may carry. */
  replyLimit?: ReplyLimit;
}

/** Recall candidates considered per pass, best first, until top-K offered resources are found. */
const RECALL_POOL = 1000;

export class Synthesizer {
  readonly catalog = new ToolCatalog();
  readonly bundles = new PolicyBundles();
  readonly tools: ToolSetCache;
  readonly memory: MemoryTools;
  readonly #logger: Logger;
  readonly #preferences: PreferenceSource;
  readonly #listings: ListingRecorder;
  readonly #namespaces: CredentialNamespaces;
  /** Whether each catalog entry's credential reference may be used (decided once per entry). */
  readonly #credentialAllowed = new WeakMap<CatalogEntry, boolean>();
  /** Operations an executor withdrew, by resource key: the version they were withdrawn in. */
  readonly #withdrawn = new Map<string, { version: number; operations: Set<string> }>();

  constructor(deps: SynthesizerDeps) {
    this.#logger = deps.logger;
    this.#namespaces = deps.credentialNamespaces ?? UNRESTRICTED_CREDENTIAL_NAMESPACES;
    this.#preferences = deps.preferences ?? noPreferences;
    this.#listings = deps.listings ?? noListings;
    this.tools = new ToolSetCache(deps.toolCacheSize);
    this.memory = new MemoryTools(deps.memory ?? new MemoryProjection(deps.logger), deps.logger);
  }

  /** Applies a value (or deletion) of the resources KV bucket. */
  applyResource(key: string, value: Uint8Array | undefined): CatalogChange {
    const change = this.catalog.apply(key, value);
    if (change.kind === 'unchanged') return change;
    this.tools.purge(key);
    if (change.kind === 'rejected') {
      this.#logger.warn({ key, reason: change.reason }, 'resource entry rejected; not offered');
    } else {
      this.#logger.debug(
        {
          key,
          change: change.kind,
          ...('entry' in change ? { version: change.entry.version } : {}),
        },
        'resource catalog changed',
      );
    }
    return change;
  }

  /**
   * An executor withdrew `operation` of a resource version (its pinned definition no longer
   * matches the live system): it is offered to nobody while that version is current; a newer
   * version (a new confirmation) offers it again. A withdrawal for an older version is ignored.
   */
  withdraw(key: string, version: number, operation: string): void {
    const current = this.catalog.byKey(key)?.version;
    if (current !== undefined && version !== 0 && version < current) return;
    const held = this.#withdrawn.get(key);
    // Records arrive in any order (the bucket's replay, then events): an older one never
    // replaces what a newer version withdrew.
    if (held !== undefined && version !== 0 && version < held.version) return;
    if (held !== undefined && (held.version === version || version === 0))
      held.operations.add(operation);
    else this.#withdrawn.set(key, { version, operations: new Set([operation]) });
    this.#logger.warn({ key, version, operation }, 'operation withdrawn; no longer offered');
  }

  /** Applies a value (or deletion) of the policy bundles KV bucket. */
  applyBundle(key: string, value: Uint8Array | undefined): BundleChange {
    const started = performance.now();
    const change = this.bundles.apply(key, value);
    const ms = Math.round(performance.now() - started);
    const where = { key, tenant: parsePolicyBundleKey(key)?.tenant };
    if (change.kind === 'failed' || change.kind === 'kept') {
      this.#logger.warn(
        { ...where, reason: change.reason, change: change.kind, ms },
        'policy bundle refused',
      );
    } else if (change.kind === 'deferred') {
      this.#logger.debug(where, 'policy bundle held until it is first asked for');
    } else {
      this.#logger.info({ ...where, ...change, ms }, 'policy bundle changed');
    }
    return change;
  }

  /**
   * The principal's tools: with a task, those of the top-K resources most relevant to it (only
   * resources that match, favoured by preferences), then those of resources a saved query
   * matching the task runs on; without, those of every permitted resource by name (the first
   * top-K when given). Each base tool is followed by the principal's saved queries narrowing
   * it, and documents the principal's preferred fields as its default. Resources the principal
   * may do nothing on are never offered. POLICY_UNAVAILABLE without a usable bundle;
   * POLICY_DENIED for an undeclared agent.
   */
  async listTools(input: ListToolsInput): Promise<WireTool[]> {
    const { principal, task, format, topK, sessionId, replyLimit } = input;
    const access = this.bundles.access(principal);
    const scope = { tenant: principal.tenant, environment: principal.environment };
    const offer = (entry: CatalogEntry) => this.#offer(access, entry, principal);
    const memory = this.#memoryOf(principal, scope);
    let replyBytes = 0;
    const take = (set: ToolSet): readonly WireTool[] => {
      const offered = this.memory.offered(set, format, memory);
      if (replyLimit !== undefined) {
        replyBytes += encodedSize(offered);
        checkReplySize(replyBytes, replyLimit);
      }
      return offered;
    };
    let chosen: (readonly WireTool[])[];
    if (task === '') {
      chosen = [];
      for (const entry of this.catalog.inScope(scope)) {
        const set = offer(entry);
        if (set !== undefined) chosen.push(take(set));
        if (topK > 0 && chosen.length === topK) break;
      }
    } else {
      const boosts = await this.#boosts(input);
      const limit = topK || DEFAULT_TOP_K;
      const ranked = this.#ranked(scope, task, limit, boosts, offer);
      const recalled = this.#recalledBySavedQueries(scope, task, memory, ranked, limit, offer);
      chosen = [...ranked, ...recalled].map(take);
    }
    const tools = chosen.flat();
    if (sessionId !== '') {
      await this.#listings.record({
        sessionId,
        principal,
        roles: access.roles,
        task,
        tools: tools.map((t) => ({
          name: t.name,
          version: t.version,
          resource: t.resource,
          resourceVersion: t.resourceVersion,
        })),
      });
    }
    return tools;
  }

  /**
   * One of the principal's tools by name (a saved query's `sq_<name>` too), as listed to it;
   * UNKNOWN_TOOL when it is not offered to them.
   */
  getTool(principal: Principal, name: string, format: ToolFormat): WireTool {
    const access = this.bundles.access(principal);
    const scope = { tenant: principal.tenant, environment: principal.environment };
    const memory = this.#memoryOf(principal, scope);
    const offered = (toolName: string) => {
      const found = this.catalog.byToolName(scope, toolName);
      const set = found === undefined ? undefined : this.#offer(access, found.entry, principal);
      const index = set?.tools.findIndex((tool) => tool.name === toolName) ?? -1;
      return set === undefined || index < 0 ? undefined : { set, index };
    };
    let tool: WireTool | undefined;
    const base = offered(name);
    const queryName = savedQueryNameOf(name);
    if (base !== undefined) {
      tool = this.memory.baseTool(base.set, base.index, format, memory);
    } else if (queryName !== undefined) {
      const query = memory.savedQueries.get(queryName);
      const under = query === undefined ? undefined : offered(query.tool);
      if (query !== undefined && under !== undefined) {
        tool = this.memory.narrowed(under.set, under.index, query, memory)?.wire(format);
      }
    }
    if (tool === undefined) {
      throw new TollgateError(
        'UNKNOWN_TOOL',
        `No tool named "${name}" is offered to agent "${principal.agent}" in ${principal.tenant}/${principal.environment}.`,
        { details: [{ path: 'name', message: 'no such tool for this principal', found: name }] },
      );
    }
    return tool;
  }

  /** Hits best first, walking recall candidates until `topK` offered resources are found. */
  #ranked(
    scope: RecallScope,
    task: string,
    topK: number,
    boosts: Record<string, number>,
    offer: (entry: CatalogEntry) => ToolSet | undefined,
  ): ToolSet[] {
    const pool = Math.min(RECALL_POOL, this.catalog.scopeSize(scope));
    if (pool === 0) return [];
    const considered = new Set<string>();
    const chosen: ToolSet[] = [];
    const hits = this.catalog.search(scope, task, { topK: pool, boosts });
    for (const { entry } of hits) {
      considered.add(entry.key);
      const set = offer(entry);
      if (set !== undefined) chosen.push(set);
      if (chosen.length === topK) return chosen;
    }
    if (hits.length < RECALL_POOL) return chosen;
    const more = this.catalog.search(scope, task, {
      topK: topK - chosen.length,
      boosts,
      filter: (entry) => !considered.has(entry.key) && offer(entry) !== undefined,
    });
    return [...chosen, ...more.flatMap(({ entry }) => offer(entry) ?? [])];
  }

  /**
   * Resources (beyond the ranked ones, at most `limit`) whose tools a saved query matching the
   * task narrows: the principal saved it for questions like this one.
   */
  #recalledBySavedQueries(
    scope: RecallScope,
    task: string,
    memory: PrincipalMemory,
    ranked: readonly ToolSet[],
    limit: number,
    offer: (entry: CatalogEntry) => ToolSet | undefined,
  ): ToolSet[] {
    const chosen = new Set(ranked.map((set) => set.entry.key));
    const recalled: ToolSet[] = [];
    for (const query of this.memory.matching(memory, task)) {
      if (recalled.length === limit) break;
      const found = this.catalog.byToolName(scope, query.tool);
      if (found === undefined || chosen.has(found.entry.key)) continue;
      const set = offer(found.entry);
      const index = set?.tools.findIndex((tool) => tool.name === query.tool) ?? -1;
      if (set === undefined || index < 0) continue;
      if (this.memory.narrowed(set, index, query, memory) === undefined) continue;
      chosen.add(found.entry.key);
      recalled.push(set);
    }
    return recalled;
  }

  #memoryOf(principal: Principal, scope: RecallScope): PrincipalMemory {
    return this.memory.of(
      principal,
      (toolName) => this.catalog.byToolName(scope, toolName) !== undefined,
    );
  }

  #offer(access: PrincipalAccess, entry: CatalogEntry, principal: Principal): ToolSet | undefined {
    if (!this.#runnable(entry)) return undefined;
    const permissions = access.permissions(entry.name);
    if (permissions.unavailable !== undefined) {
      this.#logger.warn(
        {
          tenant: entry.tenant,
          resource: entry.name,
          agent: principal.agent,
          reason: permissions.unavailable,
        },
        'permissions could not be evaluated; resource not offered',
      );
      return undefined;
    }
    const withdrawn = this.#withdrawnOf(entry);
    const offered =
      withdrawn === undefined
        ? permissions
        : { ...permissions, operations: permissions.operations.filter((o) => !withdrawn.has(o)) };
    if (offered.operations.length === 0) return undefined;
    try {
      const set = this.tools.toolSet(entry, offered);
      return set.tools.length > 0 ? set : undefined;
    } catch (err) {
      this.#logger.error(
        { key: entry.key, version: entry.version, err: { message: (err as Error).message } },
        'tool synthesis failed; resource not offered',
      );
      return undefined;
    }
  }

  /** The operations withdrawn in the entry's version (a newer version clears them). */
  #withdrawnOf(entry: CatalogEntry): ReadonlySet<string> | undefined {
    const held = this.#withdrawn.get(entry.key);
    if (held === undefined) return undefined;
    if (held.version !== 0 && held.version < entry.version) {
      this.#withdrawn.delete(entry.key);
      return undefined;
    }
    return held.operations;
  }

  /** Whether the executor would resolve the entry's credential at all (warned once per entry). */
  #runnable(entry: CatalogEntry): boolean {
    let allowed = this.#credentialAllowed.get(entry);
    if (allowed === undefined) {
      const { tenant, environment } = entry;
      const ref = entry.resource.spec.connection.credentialRef;
      const verdict =
        ref === undefined
          ? { allowed: true as const }
          : checkCredentialNamespace(this.#namespaces, { tenant, environment }, ref);
      allowed = verdict.allowed;
      this.#credentialAllowed.set(entry, allowed);
      if (!verdict.allowed) {
        this.#logger.warn(
          { key: entry.key, version: entry.version, reason: verdict.problem },
          'credential reference outside the tenant namespace; resource not offered',
        );
      }
    }
    return allowed;
  }

  async #boosts(input: ListToolsInput): Promise<Record<string, number>> {
    try {
      const boosts = await this.#preferences.boosts({
        principal: input.principal,
        ...(input.token !== undefined ? { token: input.token } : {}),
        sessionId: input.sessionId,
        task: input.task,
      });
      return Object.fromEntries(
        Object.entries(boosts).filter(
          ([, b]) => typeof b === 'number' && Number.isFinite(b) && b >= 0,
        ),
      );
    } catch (err) {
      this.#logger.warn(
        { err: { message: (err as Error).message } },
        'preferences failed; ranking without them',
      );
      return {};
    }
  }
}
