import type { Operation } from '@tollgate/core';

/** Every operation a tool can perform, in the order tools and permission sets list them. */
export const OPERATIONS: readonly Operation[] = ['search', 'get', 'count', 'aggregate', 'write'];

/** Operations that only read; the `read` action group in the Cedar schema. */
export const READ_OPERATIONS: readonly Operation[] = ['search', 'get', 'count', 'aggregate'];

const RESOURCE_NAME = /^[a-z][a-z0-9_]{2,62}$/;

/** `<resource>.<operation>` as a grant names it; `*` stands for a whole segment. */
export interface ActionPattern {
  resource: string | '*';
  operation: Operation | '*';
}

export function isOperation(value: unknown): value is Operation {
  return typeof value === 'string' && (OPERATIONS as readonly string[]).includes(value);
}

export function isResourceName(value: string): boolean {
  return RESOURCE_NAME.test(value);
}

/** Parses `es_orders.search`, `es_orders.*`, `*.search` or `*.*`; returns an error message otherwise. */
export function parseActionPattern(text: string): ActionPattern | string {
  const dot = text.lastIndexOf('.');
  if (dot < 0) return `"${text}" is not <resource>.<operation>`;
  const resource = text.slice(0, dot);
  const operation = text.slice(dot + 1);
  if (resource !== '*' && !isResourceName(resource)) {
    return `"${text}": resource must be a resource name or * (a whole segment), found "${resource}"`;
  }
  if (operation !== '*' && !isOperation(operation)) {
    return `"${text}": operation must be one of ${OPERATIONS.join(', ')} or *, found "${operation}"`;
  }
  return { resource, operation };
}

export function formatActionPattern(pattern: ActionPattern): string {
  return `${pattern.resource}.${pattern.operation}`;
}

export function matchesAction(
  pattern: ActionPattern,
  resource: string,
  operation: Operation,
): boolean {
  return (
    (pattern.resource === '*' || pattern.resource === resource) &&
    (pattern.operation === '*' || pattern.operation === operation)
  );
}

/** Splits a tool name (`es_orders_search`) or an action (`es_orders.search`) into its parts. */
export function parseToolName(
  tool: string,
): { resource: string; operation: Operation } | undefined {
  const dotted = parseActionPattern(tool);
  if (typeof dotted !== 'string' && dotted.resource !== '*' && dotted.operation !== '*') {
    return { resource: dotted.resource, operation: dotted.operation };
  }
  const underscore = tool.lastIndexOf('_');
  if (underscore < 0) return undefined;
  const resource = tool.slice(0, underscore);
  const operation = tool.slice(underscore + 1);
  return isResourceName(resource) && isOperation(operation) ? { resource, operation } : undefined;
}
