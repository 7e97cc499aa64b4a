import { TollgateError, toolName } from '@tollgate/core';
import { reportedProblems } from './argument-shape.js';
import type {
  CompiledToolSet,
  KindRegistry,
  OperationSpec,
  PermissionSet,
  PublishedResource,
  ToolDefinition,
  ToolValidator,
  ToolValidatorCache,
} from '@tollgate/core';

/** The operations of a resource version: what it offers, and what it would offer if writable. */
export interface ResourceOperations {
  offered: readonly OperationSpec[];
  /** Operations only a writable version offers (empty when it is writable). */
  readonlyWithheld: readonly string[];
}

/** Operations by resource version object: a version's operations never change. */
const operationCache = new WeakMap<PublishedResource, ResourceOperations>();

/** The operations the resource's kind declares for this version, in tool order. */
export function resourceOperations(
  kinds: Pick<KindRegistry, 'get'>,
  resource: PublishedResource,
): ResourceOperations {
  let operations = operationCache.get(resource);
  if (operations === undefined) {
    const kind = kinds.get(resource.descriptor.spec.type);
    const { descriptor } = resource;
    const offered = kind.operations(descriptor);
    const names = new Set(offered.map((op) => op.name));
    const writable =
      descriptor.spec.access.readonly === false
        ? []
        : kind.operations({
            ...descriptor,
            spec: { ...descriptor.spec, access: { ...descriptor.spec.access, readonly: false } },
          });
    operations = {
      offered,
      readonlyWithheld: writable.map((op) => op.name).filter((name) => !names.has(name)),
    };
    operationCache.set(resource, operations);
  }
  return operations;
}

/**
 * The operation a tool name stands for on the resource the subject names: the name must be
 * exactly the synthesizer's `<resource>_<operation>` for that resource. A write a read-only
 * version withholds is still returned, so policy denies it with its reason (read-only);
 * validation would refuse it anyway, since no such tool is offered.
 */
export function operationOf(
  resource: PublishedResource,
  operations: ResourceOperations,
  tool: string,
): string {
  const declared = baseOperation(resource, operations.offered, tool)?.name;
  const withheld = operations.readonlyWithheld.find(
    (name) => toolName(resource.name, name) === tool,
  );
  const operation = declared ?? withheld;
  if (operation === undefined) {
    throw new TollgateError(
      'UNKNOWN_TOOL',
      `Tool ${JSON.stringify(tool.slice(0, 80))} does not belong to ${resource.name}; list tools again.`,
      {
        details: [
          {
            path: 'tool',
            message: 'not a tool of this resource',
            expected: `${resource.name}_<operation>`,
            found: tool.slice(0, 80),
          },
        ],
      },
    );
  }
  return operation;
}

/** The operation of `tool` when it is one of the resource's own tools (`<resource>_<operation>`). */
export function baseOperation(
  resource: PublishedResource,
  operations: readonly OperationSpec[],
  tool: string,
): OperationSpec | undefined {
  return operations.find((op) => toolName(resource.name, op.name) === tool);
}

/** Tool sets by cache, permission set object and resource version object. */
const toolSets = new WeakMap<
  ToolValidatorCache,
  WeakMap<PermissionSet, WeakMap<PublishedResource, CompiledToolSet>>
>();

/**
 * The compiled tool set of (resource version × permission set). The cache keys it by content;
 * this remembers it by object too, so a steady call skips building that key.
 */
function toolSetOf(
  cache: ToolValidatorCache,
  resource: PublishedResource,
  permissions: PermissionSet,
): CompiledToolSet {
  let byPermissions = toolSets.get(cache);
  if (byPermissions === undefined) {
    byPermissions = new WeakMap();
    toolSets.set(cache, byPermissions);
  }
  let byResource = byPermissions.get(permissions);
  if (byResource === undefined) {
    byResource = new WeakMap();
    byPermissions.set(permissions, byResource);
  }
  let set = byResource.get(resource);
  if (set === undefined) {
    set = cache.toolSet({ ...resource.descriptor, version: resource.version }, permissions);
    byResource.set(resource, set);
  }
  return set;
}

/** The compiled validator of a tool as synthesized for this permission set, if it is offered. */
export function toolValidatorOf(
  cache: ToolValidatorCache,
  resource: PublishedResource,
  permissions: PermissionSet,
  tool: string,
): ToolValidator | undefined {
  return toolSetOf(cache, resource, permissions).validator(tool);
}

/** A call whose arguments matched the tool this principal was handed. */
export interface ValidatedCall {
  tool: ToolDefinition;
  /** The arguments with `null`s removed, as the compiler takes them. */
  args: Record<string, unknown>;
}

/**
 * Validates arguments against exactly the schema the synthesizer gives this principal for this
 * resource version: the tool set is synthesized and compiled once per (version × permission
 * set) and cached. A stale `toolVersion` is `UNKNOWN_TOOL`, so an agent holding an old schema
 * lists tools again instead of guessing; violations are `ARGUMENTS_INVALID` with one detail per
 * offending path and what was allowed there.
 */
export function validateCall(
  cache: ToolValidatorCache,
  resource: PublishedResource,
  permissions: PermissionSet,
  toolNameSent: string,
  toolVersion: string,
  args: unknown,
): ValidatedCall {
  const validator = toolValidatorOf(cache, resource, permissions, toolNameSent);
  if (validator === undefined) {
    throw new TollgateError(
      'UNKNOWN_TOOL',
      `Tool ${toolNameSent} is not available to you on ${resource.name} v${resource.version}; list tools again.`,
    );
  }
  const tool = validator.tool;
  if (toolVersion !== '' && toolVersion !== tool.version) {
    throw new TollgateError(
      'UNKNOWN_TOOL',
      `Tool ${tool.name} changed since you listed it (${resource.name} is now v${resource.version}); list tools again.`,
      {
        details: [
          {
            path: 'tool_version',
            message: 'stale tool version',
            expected: tool.version,
            found: toolVersion.slice(0, 80),
          },
        ],
      },
    );
  }
  const checked = validator.validate(args);
  if (!checked.ok) {
    const { details, count } = reportedProblems(checked.details);
    throw new TollgateError(
      'ARGUMENTS_INVALID',
      `Arguments do not match ${tool.name}: ${count}; fix each path named in details.`,
      { details },
    );
  }
  return { tool, args: checked.args };
}
