/**
 * Tool synthesis: (resource version × permission set) → tools, for every kind alike. The kind
 * declares the operations and offers each one's schema and description; core names the tools,
 * keeps only granted operations, and versions each tool by its content. Pure and
 * deterministic: the same inputs give byte-identical tools with the same version hashes.
 */
import { TollgateError } from '../errors/codes.js';
import { canonicalHash, canonicalJson } from '../canonical.js';
import type { ResourceKind } from '../kind/kind.js';
import type {
  JsonObject,
  JsonSchema,
  PermissionSet,
  ToolDefinition,
  VersionedResource,
} from '../tools/types.js';
import { resolveOptions } from './limits.js';
import type { SynthesisOptions } from './limits.js';
import { normalizePermissions } from './permissions.js';

const MAX_TOOL_NAME = 64;

/**
 * One tool per operation the kind declares for this resource version, the permission set
 * grants and the kind offers a tool for, in the kind's order.
 */
export function synthesizeTools(
  resource: VersionedResource,
  permissions: PermissionSet,
  kind: ResourceKind,
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
  if (resource.spec.type !== kind.type) {
    throw new TollgateError(
      'INTERNAL',
      `resource ${resource.metadata.name} is of kind ${resource.spec.type}, not ${kind.type}`,
    );
  }
  const normalized = normalizePermissions(permissions);
  const granted = new Set(normalized.operations);
  const operations = kind.operations(resource).filter((op) => granted.has(op.name));
  const { name, tenant, environment } = resource.metadata;
  const toolNames = new Map(operations.map((op) => [op.name, toolName(name, op.name)]));
  const offers = kind.offerTools({
    resource,
    permissions: normalized,
    limits: resolveOptions(options),
    operations,
    toolNames,
  });
  const offered = operations.flatMap((op) => {
    const offer = offers.get(op.name);
    return offer === undefined ? [] : [{ op, offer }];
  });
  const memo = sharedParts(offered.map(({ offer }) => offer.inputSchema));
  return offered.map(({ op, offer }) => {
    const tool = {
      name: toolNames.get(op.name) as string,
      description: offer.description,
      operation: op.name,
      class: op.class,
      idempotent: op.idempotent,
      resource: { name, tenant, environment, version: resource.version },
      inputSchema: offer.inputSchema,
    };
    return { ...tool, version: hashTool(tool, memo) };
  });
}

/**
 * `<resource>_<operation>`; a resource name too long for the 64-character limit of function
 * names is cut and given a short hash of the full name, so names stay unique and stable.
 */
export function toolName(resourceName: string, operation: string): string {
  const plain = `${resourceName}_${operation}`;
  if (plain.length <= MAX_TOOL_NAME) return plain;
  const tag = canonicalHash(resourceName).slice(0, 8);
  const keep = Math.max(1, MAX_TOOL_NAME - operation.length - tag.length - 2);
  return `${resourceName.slice(0, keep)}_${tag}_${operation}`.slice(0, MAX_TOOL_NAME);
}

/** sha256 (hex) over the canonical JSON of a tool without its `version`. */
export function toolVersionHash(
  tool: Omit<ToolDefinition, 'version'> & { version?: string },
): string {
  return hashTool(tool);
}

function hashTool(tool: Omit<ToolDefinition, 'version'>, memo?: Map<object, string>): string {
  const { name, description, operation, idempotent, resource, inputSchema: schema } = tool;
  return canonicalHash(
    { name, description, operation, class: tool.class, idempotent, resource, inputSchema: schema },
    memo,
  );
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
