/**
 * Saved queries as tools, and preferred fields as defaults. A saved query is a tool call with
 * some values left open; offered as a tool it asks the model for those values only and runs as
 * the tool it narrows. It can never widen access: the synthesizer offers it only where the base
 * tool is offered to the principal, and the executor expands every call into base-tool
 * arguments that go through the same decide/validate/compile stages as any other call.
 */
import { canonicalHash } from '../canonical.js';
import { formatPath, pointerSegments } from '../descriptor/path.js';
import { TollgateError } from '../errors/codes.js';
import type { ErrorDetail } from '../errors/codes.js';
import { JSON_SCHEMA_DIALECT } from '../tools/types.js';
import type { JsonObject, JsonSchema, JsonValue, ToolDefinition } from '../tools/types.js';
import type { ToolValidator } from '../tools/validator.js';
import { parentAt, pointerKeys } from './pointer.js';
import type { PublishedSavedQuery, SavedQueryParameter } from './published.js';

export const SAVED_QUERY_TOOL_PREFIX = 'sq_';
const MAX_TOOL_NAME = 64;
const SAVED_QUERY_NAME = /^[a-z][a-z0-9_]{0,60}$/;

/** `sq_<name>`; undefined when the name cannot make a tool name (over 61 characters). */
export function savedQueryToolName(name: string): string | undefined {
  return SAVED_QUERY_NAME.test(name) ? `${SAVED_QUERY_TOOL_PREFIX}${name}` : undefined;
}

/** The saved query a tool name stands for, when it is one. */
export function savedQueryNameOf(tool: string): string | undefined {
  if (!tool.startsWith(SAVED_QUERY_TOOL_PREFIX) || tool.length > MAX_TOOL_NAME) return undefined;
  const name = tool.slice(SAVED_QUERY_TOOL_PREFIX.length);
  return SAVED_QUERY_NAME.test(name) ? name : undefined;
}

/** What a saved-query tool carries about its origin (absent on synthesized tools). */
export interface SavedQueryOrigin {
  id: string;
  name: string;
  revision: number;
  contentHash: string;
  /** The tool it runs as, and that tool's version when this one was made. */
  baseTool: string;
  baseVersion: string;
}

export type SavedQueryToolDefinition = ToolDefinition & { savedQuery: SavedQueryOrigin };

/**
 * The narrower tool a saved query offers on top of `base` (the principal's own synthesized
 * tool), or why it cannot be offered: it names another tool, a name too long for a tool, or
 * fixed arguments the base tool no longer admits (a field since hidden, an operator removed).
 * Values at the parameters' own paths are not judged here; every call is validated in full.
 */
export function savedQueryTool(
  base: ToolValidator,
  query: PublishedSavedQuery,
): SavedQueryToolDefinition | { unusable: string } {
  const baseTool = base.tool;
  if (query.tool !== baseTool.name)
    return { unusable: `it runs ${query.tool}, not ${baseTool.name}` };
  const name = savedQueryToolName(query.name);
  if (name === undefined) return { unusable: 'its name is too long for a tool name' };
  const misfit = fixedArgumentMisfit(base, query);
  if (misfit !== undefined)
    return { unusable: `its fixed arguments no longer fit ${baseTool.name}: ${misfit}` };
  const parameters = query.parameters;
  const supply =
    parameters.length === 0
      ? 'It takes no arguments.'
      : `Supply ${parameters.map((p) => p.name).join(', ')}.`;
  const tool: Omit<SavedQueryToolDefinition, 'version'> = {
    name,
    description: `${query.description.trim()}\nSaved query "${query.name}": runs ${baseTool.name} with the rest of its arguments fixed. ${supply} Prefer it to ${baseTool.name} for this question.`,
    operation: baseTool.operation,
    class: baseTool.class,
    idempotent: baseTool.idempotent,
    resource: baseTool.resource,
    inputSchema: savedQueryInputSchema(query),
    savedQuery: {
      id: query.id,
      name: query.name,
      revision: query.revision,
      contentHash: query.contentHash,
      baseTool: baseTool.name,
      baseVersion: baseTool.version,
    },
  };
  // Same inputs, same version; a new approved revision or a changed base tool is a new version.
  return { ...tool, version: canonicalHash(tool) };
}

/** The saved-query tool's arguments: each parameter, required, nothing else. */
export function savedQueryInputSchema(query: PublishedSavedQuery): JsonSchema {
  const parameters = query.parameters;
  return {
    $schema: JSON_SCHEMA_DIALECT,
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [p.name, parameterSchema(p)])),
    ...(parameters.length > 0 ? { required: parameters.map((p) => p.name) } : {}),
    additionalProperties: false,
  };
}

function parameterSchema(p: SavedQueryParameter): JsonSchema {
  const description = p.description.trim() || p.name;
  if (p.type === 'array') {
    return { type: 'array', description, items: { type: 'string' }, minItems: 1, maxItems: 100 };
  }
  return { type: p.type, description };
}

/** The first problem of the fixed arguments outside the parameters' paths, if any. */
function fixedArgumentMisfit(base: ToolValidator, query: PublishedSavedQuery): string | undefined {
  const checked = base.validate(structuredClone(query.arguments));
  if (checked.ok) return undefined;
  const open = query.parameters.map((p) => readablePath(p.path, query.arguments));
  const fixed = checked.details.find(
    (d) =>
      !open.some((path) => d.path === path || isWithin(d.path, path) || isWithin(path, d.path)),
  );
  return fixed === undefined ? undefined : `${fixed.path || '(arguments)'}: ${fixed.message}`;
}

/**
 * The base-tool arguments of one saved-query call: the caller's values, checked against the
 * saved-query tool (`validator` of the tool `savedQueryTool` made), put at their parameters'
 * paths in a copy of the fixed arguments. ARGUMENTS_INVALID names parameters, not paths.
 */
export function expandSavedQueryCall(
  validator: ToolValidator,
  query: PublishedSavedQuery,
  args: unknown,
): Record<string, unknown> {
  const checked = validator.validate(args);
  if (!checked.ok) {
    const count = checked.details.length;
    throw new TollgateError(
      'ARGUMENTS_INVALID',
      `Arguments do not match ${validator.tool.name}: ${count} problem${count === 1 ? '' : 's'}; fix each path named in details.`,
      { details: checked.details },
    );
  }
  const expanded = structuredClone(query.arguments) as JsonObject;
  for (const parameter of query.parameters) {
    const value = checked.args[parameter.name];
    if (value !== undefined) setAtPointer(expanded, parameter.path, value as JsonValue);
  }
  return expanded;
}

/**
 * Base-tool validation details of an expanded call, told in the saved query's terms: a problem
 * at a parameter's path is that parameter's; anything else is the saved query's own fixed part
 * (the base tool changed under it), which the caller cannot fix.
 */
export function savedQueryDetails(
  query: PublishedSavedQuery,
  expanded: Record<string, unknown>,
  details: readonly ErrorDetail[],
): ErrorDetail[] {
  const open = query.parameters.map((p) => ({ p, path: readablePath(p.path, expanded) }));
  return details.map((detail) => {
    const match = open.find(({ path }) => detail.path === path || isWithin(detail.path, path));
    if (match !== undefined) {
      return { ...detail, path: `${match.p.name}${detail.path.slice(match.path.length)}` };
    }
    return {
      ...detail,
      path: `saved_query.${query.name}.arguments${detail.path === '' ? '' : `.${detail.path}`}`,
      message: `the saved query's fixed argument no longer fits ${query.tool}: ${detail.message}`,
    };
  });
}

/** The fields of `preferred` the tool may return, in preferred order; [] when it takes no `fields`. */
export function defaultFieldsFor(tool: ToolDefinition, preferred: readonly string[]): string[] {
  const fields = (tool.inputSchema['properties'] as JsonObject | undefined)?.['fields'];
  const items = (fields as JsonObject | undefined)?.['items'] as JsonObject | undefined;
  const allowed = items?.['enum'];
  if (!Array.isArray(allowed)) return [];
  const permitted = new Set(allowed);
  return [...new Set(preferred)].filter((f) => permitted.has(f));
}

/**
 * The tool as offered with default fields: the `fields` description says what an omitted or
 * null `fields` returns for this principal. The version is unchanged — it names the contract
 * calls are validated against, and the executor applies the same default (`withDefaultFields`).
 */
export function annotateDefaultFields(
  tool: ToolDefinition,
  fields: readonly string[],
): ToolDefinition {
  if (fields.length === 0) return tool;
  const properties = tool.inputSchema['properties'] as JsonObject | undefined;
  const property = properties?.['fields'] as JsonObject | undefined;
  if (property === undefined) return tool;
  return {
    ...tool,
    inputSchema: {
      ...tool.inputSchema,
      properties: {
        ...properties,
        fields: {
          ...property,
          description: `Fields to return; omit or null for your usual fields (${fields.join(', ')}). Name fields to get others.`,
        },
      },
    },
  };
}

/** Validated arguments with `fields` defaulted when the call named none. */
export function withDefaultFields(
  args: Record<string, unknown>,
  fields: readonly string[],
): Record<string, unknown> {
  if (fields.length === 0 || args['fields'] !== undefined) return args;
  return { ...args, fields: [...fields] };
}

function readablePath(pointer: string, root: unknown): string {
  return formatPath(pointerSegments(pointer, root));
}

/** `inner` lies below `outer` (`filters[0].value` within `filters[0]`). */
function isWithin(inner: string, outer: string): boolean {
  if (outer === '') return inner !== '';
  return inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
}

function setAtPointer(root: JsonObject, pointer: string, value: JsonValue): void {
  const keys = pointerKeys(pointer);
  const parent = keys === undefined ? undefined : parentAt(root, keys);
  if (keys === undefined || parent === undefined) {
    throw new TollgateError('INTERNAL', `saved query parameter path ${pointer} does not exist`);
  }
  const last = keys[keys.length - 1] as string;
  if (Array.isArray(parent)) parent[Number(last)] = value;
  else parent[last] = value;
}
