import { isOperationName } from '@tollgate/core';
import type { OperationClass } from '@tollgate/core';

const RESOURCE_NAME = /^[a-z][a-z0-9_]{2,62}$/;

/**
 * The Cedar action groups, one per operation class: `read` holds operations that change
 * nothing, `change` every operation that changes data (write and destructive), `destroy` the
 * destructive ones. Raw Cedar may test them (`action in Action::"read"`).
 */
export const ACTION_GROUPS = ['read', 'change', 'destroy'] as const;
export type ActionGroup = (typeof ACTION_GROUPS)[number];

/** The groups an operation of `cls` belongs to. */
export function groupsOfClass(cls: OperationClass): ActionGroup[] {
  if (cls === 'read') return ['read'];
  return cls === 'destructive' ? ['change', 'destroy'] : ['change'];
}

/** `<resource>.<operation>` as a grant names it; `*` stands for a whole segment. */
export interface ActionPattern {
  resource: string | '*';
  operation: string | '*';
}

export function isResourceName(value: string): boolean {
  return RESOURCE_NAME.test(value);
}

/** Parses `orders.search`, `orders.*`, `*.search` or `*.*`; returns an error message otherwise. */
export function parseActionPattern(text: string): ActionPattern | string {
  const dot = text.lastIndexOf('.');
  if (dot < 0) return `"${text}" is not <resource>.<operation>`;
  const resource = text.slice(0, dot);
  const operation = text.slice(dot + 1);
  if (resource !== '*' && !isResourceName(resource)) {
    return `"${text}": resource must be a resource name or * (a whole segment), found "${resource}"`;
  }
  if (operation !== '*' && !isOperationName(operation)) {
    return `"${text}": operation must be an operation name ([a-z][a-z0-9_]*, not read, change, destroy, view_field or filter_field) or *, found "${operation}"`;
  }
  return { resource, operation };
}

export function formatActionPattern(pattern: ActionPattern): string {
  return `${pattern.resource}.${pattern.operation}`;
}

export function matchesAction(
  pattern: ActionPattern,
  resource: string,
  operation: string,
): boolean {
  return (
    (pattern.resource === '*' || pattern.resource === resource) &&
    (pattern.operation === '*' || pattern.operation === operation)
  );
}
