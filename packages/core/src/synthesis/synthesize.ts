/**
 * Tool synthesis: (resource version × permission set) → tools. Pure and deterministic: the
 * same inputs give byte-identical tools with the same version hashes.
 */
import { TollgateError } from '../errors/codes.js';
import { canonicalHash, canonicalJson } from '../canonical.js';
import type {
  JsonObject,
  JsonSchema,
  Operation,
  PermissionSet,
  ToolDefinition,
  VersionedResource,
} from '../tools/types.js';
import { describeTool } from './descriptions.js';
import { resolveOptions } from './limits.js';
import type { SynthesisOptions } from './limits.js';
import { project } from './projection.js';
import { inputSchema } from './schemas.js';

const TOOL_ORDER: readonly Operation[] = ['search', 'get', 'count', 'aggregate', 'write'];
const MAX_TOOL_NAME = 64;

/**
 * One tool per operation the permission set allows and the projection leaves something to do
 * for, in the order search, get, count, aggregate, write. `write` also needs the resource to be
 * declared `readonly: false`.
 */
export function synthesizeTools(
  resource: VersionedResource,
  permissions: PermissionSet,
  options?: SynthesisOptions,
): ToolDefinition[] {
  if (!Number.isSafeInteger(resource.version) || resource.version < 1) {
    throw new TollgateError('INVALID_ARGUMENT', `resource version must be a positive integer`, {
      details: [
        {
          path: 'version',
          message: 'expected a positive integer',
          found: String(resource.version),
        },
      ],
    });
  }
  const p = project(resource, permissions, resolveOptions(options));
  const allowed = TOOL_ORDER.filter(
    (op) =>
      p.permissions.operations.includes(op) &&
      (op !== 'write' || resource.spec.access.readonly === false),
  );
  const schemas = new Map(
    allowed.flatMap((op) => {
      const schema = inputSchema(op, p);
      return schema === undefined ? [] : [[op, schema] as const];
    }),
  );
  const { name, tenant, environment } = resource.metadata;
  const names = Object.fromEntries([...schemas.keys()].map((op) => [op, toolName(name, op)]));
  const memo = sharedParts([...schemas.values()]);
  return [...schemas].map(([operation, schema]) => {
    const tool = {
      name: toolName(name, operation),
      description: describeTool(operation, p, names),
      operation,
      resource: { name, tenant, environment, version: resource.version },
      inputSchema: schema,
    };
    return { ...tool, version: hashTool(tool, memo) };
  });
}

/**
 * `<resource>_<operation>`; a resource name too long for the 64-character limit of function
 * names is cut and given a short hash of the full name, so names stay unique and stable.
 */
export function toolName(resourceName: string, operation: Operation): string {
  const plain = `${resourceName}_${operation}`;
  if (plain.length <= MAX_TOOL_NAME) return plain;
  const tag = canonicalHash(resourceName).slice(0, 8);
  const keep = MAX_TOOL_NAME - operation.length - tag.length - 2;
  return `${resourceName.slice(0, keep)}_${tag}_${operation}`;
}

/** sha256 (hex) over the canonical JSON of a tool without its `version`. */
export function toolVersionHash(
  tool: Omit<ToolDefinition, 'version'> & { version?: string },
): string {
  return hashTool(tool);
}

function hashTool(tool: Omit<ToolDefinition, 'version'>, memo?: Map<object, string>): string {
  const { name, description, operation, resource, inputSchema: schema } = tool;
  return canonicalHash({ name, description, operation, resource, inputSchema: schema }, memo);
}

/** Canonical JSON of the filter schema the tools share, written once for all their hashes. */
function sharedParts(schemas: JsonSchema[]): Map<object, string> {
  const memo = new Map<object, string>();
  for (const schema of schemas) {
    const filters = (schema.properties as JsonObject | undefined)?.filters;
    if (typeof filters === 'object' && filters !== null && !memo.has(filters)) {
      memo.set(filters, canonicalJson(filters));
    }
  }
  return memo;
}
