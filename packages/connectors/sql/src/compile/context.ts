import type { PermissionSet, RedactionMethod } from '@tollgate/core';

import type { SqlDialect } from '../dialect.js';
import type { PinnedRow, SqlColumn, SqlTable } from '../model.js';

/** The permissions compile reads, as the permission set states them. */
export type SqlPermissions = Pick<
  PermissionSet,
  'operations' | 'visibleFields' | 'filterableFields' | 'limitCap' | 'unredactedFields'
>;

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
  /** The redactions that apply to this principal (role exemptions already applied). */
  redact?: Readonly<Record<string, RedactionMethod>>;
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
export function redactionOf(ctx: SqlCompileContext, name: string): RedactionMethod | undefined {
  const redact = ctx.redact ?? {};
  return Object.hasOwn(redact, name) ? redact[name] : undefined;
}
