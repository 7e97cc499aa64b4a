/**
 * Saved-query calls. A `sq_<name>` tool is one of the caller's own approved saved queries (the
 * memory bucket, followed by `MemoryProjection`): its values are checked and put into the
 * saved query's fixed arguments *before* policy decides, so policy, rate limits and validation
 * see the base-tool call that will run; then it is checked as the narrower tool the synthesizer
 * offers (same core functions, same version) and validated in full against the base tool. From
 * there on it is an ordinary call of the base tool.
 */
import {
  TollgateError,
  compileToolValidator,
  expandSavedQueryCall,
  savedQueryDetails,
  savedQueryInputSchema,
  savedQueryNameOf,
  savedQueryTool,
} from '@tollgate/core';
import type {
  Operation,
  OperationSpec,
  PermissionSet,
  Principal,
  PublishedResource,
  PublishedSavedQuery,
  SavedQueryToolDefinition,
  ToolDefinition,
  ToolValidator,
  ToolValidatorCache,
} from '@tollgate/core';
import type { MemoryProjection } from '@tollgate/kit';
import type { SavedQueryUse } from '../call-trail.js';
import { baseOperation, toolValidatorOf } from './validate.js';
import { reportedProblems } from './argument-shape.js';

/** A saved query found for the caller on the subject's resource. */
export interface FoundSavedQuery {
  query: PublishedSavedQuery;
  /** The base tool's operation: what policy decides and rate limits count. */
  operation: Operation;
  /** That operation as its kind declares it. */
  base: OperationSpec;
  use: SavedQueryUse;
}

/**
 * Whether `tool` names a saved query rather than a tool of the resource. A base tool wins, so a
 * resource whose own tools start with `sq_` keeps working.
 */
export function isSavedQueryCall(
  resource: PublishedResource,
  operations: readonly OperationSpec[],
  tool: string,
): boolean {
  return (
    baseOperation(resource, operations, tool) === undefined && savedQueryNameOf(tool) !== undefined
  );
}

/**
 * The caller's saved query a `sq_<name>` tool stands for: its user's own first, then its
 * agent's, in its own tenant — never anyone else's. A saved query that does not exist for this
 * principal, or runs a tool of another resource, is UNKNOWN_TOOL in the same words, so a caller
 * learns nothing about other users', agents' or tenants' saved queries.
 */
export function findSavedQuery(
  memory: MemoryProjection,
  principal: Principal,
  resource: PublishedResource,
  operations: readonly OperationSpec[],
  tool: string,
): FoundSavedQuery {
  const name = savedQueryNameOf(tool);
  const query = name === undefined ? undefined : memory.savedQuery(principal, name);
  const operation =
    query === undefined ? undefined : baseOperation(resource, operations, query.tool);
  if (query === undefined || operation === undefined) {
    throw new TollgateError(
      'UNKNOWN_TOOL',
      `Tool ${JSON.stringify(tool.slice(0, 80))} is not available to you on ${resource.name}; list tools again.`,
      {
        details: [
          { path: 'tool', message: 'not a saved query of yours on this resource', found: tool },
        ],
      },
    );
  }
  return {
    query,
    operation: operation.name,
    base: operation,
    use: {
      id: query.id,
      name: query.name,
      revision: query.revision,
      contentHash: query.contentHash,
      tool,
      toolVersion: '',
      baseTool: query.tool,
    },
  };
}

/**
 * Compiled validators of saved queries' parameters, by name and content hash (an approved
 * revision's parameters never change under its hash), least recently used dropped first.
 */
export class SavedQueryParameters {
  readonly #validators = new Map<string, ToolValidator>();
  readonly #maxEntries: number;

  constructor(maxEntries = 1024) {
    this.#maxEntries = maxEntries;
  }

  /** The base-tool arguments of one call; ARGUMENTS_INVALID names the parameters. */
  expand(
    found: FoundSavedQuery,
    resource: PublishedResource,
    args: unknown,
  ): Record<string, unknown> {
    return expandSavedQueryCall(this.#validatorOf(found, resource), found.query, args);
  }

  #validatorOf(found: FoundSavedQuery, resource: PublishedResource): ToolValidator {
    const { query } = found;
    const key = `${query.name}\n${query.contentHash}`;
    const cached = this.#validators.get(key);
    if (cached !== undefined) {
      this.#validators.delete(key);
      this.#validators.set(key, cached);
      return cached;
    }
    const tool: ToolDefinition = {
      name: found.use.tool,
      description: query.description,
      operation: found.operation,
      class: found.base.class,
      idempotent: found.base.idempotent,
      resource: {
        name: resource.name,
        tenant: resource.tenant,
        environment: resource.environment,
        version: resource.version,
      },
      inputSchema: savedQueryInputSchema(query),
      version: query.contentHash,
    };
    const validator = compileToolValidator(tool);
    this.#validators.set(key, validator);
    if (this.#validators.size > this.#maxEntries) {
      const oldest = this.#validators.keys().next();
      if (oldest.done !== true) this.#validators.delete(oldest.value);
    }
    return validator;
  }
}

/** A saved-query call that passed: the base tool it runs as, the narrow tool, the arguments. */
export interface ValidatedSavedQueryCall {
  tool: ToolDefinition;
  narrow: SavedQueryToolDefinition;
  /** Base-tool arguments with `null`s removed. */
  args: Record<string, unknown>;
}

/**
 * Checks a saved-query call as the synthesizer offers it to this principal: the narrow tool is
 * built from the principal's own base tool, so a saved query whose fixed part no longer fits
 * (a field since hidden, a cap lowered) is UNKNOWN_TOOL — it is no longer offered and no change
 * of parameters can fix it; a stale `tool_version` is UNKNOWN_TOOL as for base tools; the
 * expanded arguments are validated in full against the base tool, problems told as parameters
 * (or as the saved query's fixed part).
 */
export function validateSavedQueryCall(
  cache: ToolValidatorCache,
  resource: PublishedResource,
  permissions: PermissionSet,
  found: FoundSavedQuery,
  toolVersion: string,
  expanded: Record<string, unknown>,
): ValidatedSavedQueryCall {
  const { query, use } = found;
  const base = toolValidatorOf(cache, resource, permissions, query.tool);
  if (base === undefined) throw noLongerFits(use, `${query.tool} is not offered to you`);
  const narrow = narrowToolOf(base, query);
  if ('unusable' in narrow) throw noLongerFits(use, narrow.unusable);
  if (toolVersion !== '' && toolVersion !== narrow.version) {
    throw new TollgateError(
      'UNKNOWN_TOOL',
      `Tool ${use.tool} changed since you listed it (a new revision of the saved query, or ${resource.name} is now v${resource.version}); list tools again.`,
      {
        details: [
          {
            path: 'tool_version',
            message: 'stale tool version',
            expected: narrow.version,
            found: toolVersion.slice(0, 80),
          },
        ],
      },
    );
  }
  const checked = base.validate(expanded);
  if (!checked.ok) {
    const { details, count } = reportedProblems(
      savedQueryDetails(query, expanded, checked.details),
    );
    throw new TollgateError(
      'ARGUMENTS_INVALID',
      `Arguments do not match ${use.tool}: ${count}; fix each parameter named in details.`,
      { details },
    );
  }
  return { tool: base.tool, narrow, args: checked.args };
}

function noLongerFits(use: SavedQueryUse, why: string): TollgateError {
  return new TollgateError(
    'UNKNOWN_TOOL',
    `Saved query ${use.name} no longer fits what you may do with ${use.baseTool}, so it is not offered any more; list tools again.`,
    { details: [{ path: 'tool', message: why, found: use.tool }] },
  );
}

/**
 * Narrow tools by base validator (one per compiled tool set) and saved-query entry (replaced on
 * every change of the bucket entry), so a steady call neither re-checks the fixed arguments
 * nor re-hashes the tool.
 */
const narrowTools = new WeakMap<
  ToolValidator,
  WeakMap<PublishedSavedQuery, SavedQueryToolDefinition | { unusable: string }>
>();

function narrowToolOf(
  base: ToolValidator,
  query: PublishedSavedQuery,
): SavedQueryToolDefinition | { unusable: string } {
  let byQuery = narrowTools.get(base);
  if (byQuery === undefined) {
    byQuery = new WeakMap();
    narrowTools.set(base, byQuery);
  }
  let narrow = byQuery.get(query);
  if (narrow === undefined) {
    narrow = savedQueryTool(base, query);
    byQuery.set(query, narrow);
  }
  return narrow;
}
