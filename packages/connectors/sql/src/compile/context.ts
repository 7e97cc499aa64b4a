import type { RedactionRule } from '@tollgate/core';

import type { SqlDialect } from '../dialect.js';
import type { PinnedRow, SqlColumn, SqlTable } from '../model.js';

/** What this principal may do on the resource, as the permission set states it. */
export interface SqlPermissions {
  operations: readonly string[];
  visibleFields: readonly string[];
  filterableFields: readonly string[];
  limitCap: number;
}

/**
 * Everything the SQL compiler may look at: the discovered table, the principal's permissions,
 * the resource's access rules and the row filter already resolved to this principal's value.
 * Plain data; compiling does no I/O.
 */
export interface SqlCompileContext {
  dialect: SqlDialect;
  table: SqlTable;
  /** Resource name, for messages and cursor seals. */
  resource: string;
  permissions: SqlPermissions;
  /** The resource's `maxLimit` (default 100). */
  maxLimit?: number;
  redact?: Readonly<Record<string, RedactionRule>>;
  /** The row filter, resolved: every statement is pinned to it, whatever the arguments. */
  pinned?: PinnedRow;
  /** True unless the resource explicitly says `readonly: false`. */
  readonly: boolean;
  cursorKey?: string;
}

/** A declared column, looked up without touching the prototype chain. */
export function columnOf(ctx: SqlCompileContext, name: string): SqlColumn | undefined {
  return ctx.table.columns.get(name);
}

/** Redaction rule of a column, if any. */
export function redactionOf(ctx: SqlCompileContext, name: string): RedactionRule | undefined {
  const redact = ctx.redact ?? {};
  return Object.hasOwn(redact, name) ? redact[name] : undefined;
}
