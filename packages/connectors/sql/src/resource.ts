import { TollgateError } from '@tollgate/core';
import type { AccessSpec } from '@tollgate/core';

import type { SqlDialect } from './dialect.js';
import type { SqlColumn, SqlColumnType, SqlTable, SqlValueClass } from './model.js';
import type { SqlCompileContext, SqlPermissions } from './compile/context.js';
import type { DeclaredColumn } from './discovery/merge.js';
import type { SqlConnection } from './execute/login.js';

/** What discovery adds to a declared column: the native type, its bounds and nullability. */
export interface DiscoveredColumnFacts extends Omit<SqlColumnType, 'class'> {
  nullable: boolean;
}

/** A column of a SQL resource: declared class and capabilities, plus what discovery found. */
export interface SqlFieldSpec extends DeclaredColumn {
  /** Filled in by discovery; until then the column is treated conservatively. */
  column?: DiscoveredColumnFacts;
}

/** The `spec` of a postgres or mysql resource. */
export interface SqlResourceSpec {
  type: string;
  connection: SqlConnection;
  /** `schema` is the PostgreSQL schema or MySQL database (default: `public` / the connection's). */
  target: { schema?: string; table: string };
  schema: {
    fields: Record<string, SqlFieldSpec>;
    /** Key columns for a view or keyless table; discovery fills it from the table's primary key. */
    primaryKey?: string[];
    /** `view` when the target is a view (no writes); discovery fills it. */
    relation?: 'table' | 'view';
  };
  access: AccessSpec;
}

/** The table model compile and shape use, built from the (merged) resource spec. */
export function tableOf(spec: SqlResourceSpec): SqlTable {
  const columns = new Map<string, SqlColumn>();
  for (const name of Object.keys(spec.schema.fields)) {
    const field = Object.getOwnPropertyDescriptor(spec.schema.fields, name)?.value as SqlFieldSpec;
    const { nullable = true, ...facts } = field.column ?? conservativeFacts(field.type);
    const type: SqlColumnType = { ...facts, class: field.type };
    const column: SqlColumn = { name, type, nullable };
    for (const capability of [
      'filterable',
      'returnable',
      'sortable',
      'range',
      'searchable',
      'aggregatable',
    ] as const) {
      if (field[capability] === true) column[capability] = true;
    }
    if (field.description !== undefined) column.description = field.description;
    columns.set(name, column);
  }
  return {
    ...(spec.target.schema === undefined ? {} : { schema: spec.target.schema }),
    name: spec.target.table,
    kind: spec.schema.relation ?? 'table',
    columns,
    primaryKey: [...(spec.schema.primaryKey ?? [])],
  };
}

/** Facts assumed for a column discovery has not seen: nullable, widest bounds. */
function conservativeFacts(type: SqlValueClass): DiscoveredColumnFacts {
  return type === 'integer'
    ? { native: 'unknown', nullable: true, bits: 64 }
    : { native: 'unknown', nullable: true };
}

/** The spec's fields with discovered facts written in (what a merged resource version stores). */
export function fieldsOf(table: SqlTable): Record<string, SqlFieldSpec> {
  const out: Record<string, SqlFieldSpec> = {};
  for (const [name, column] of [...table.columns].sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  )) {
    const { class: type, ...facts } = column.type;
    const field: SqlFieldSpec = { type, column: { ...facts, nullable: column.nullable } };
    for (const capability of [
      'filterable',
      'returnable',
      'sortable',
      'range',
      'searchable',
      'aggregatable',
    ] as const) {
      if (column[capability] === true) field[capability] = true;
    }
    if (column.description !== undefined) field.description = column.description;
    Object.defineProperty(out, name, {
      value: field,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Who a call is for, as authenticated (never taken from arguments). */
export interface SqlPrincipal {
  tenant: string;
  agent: string;
  user?: string;
}

/**
 * The compile context of one call: the resource's table, the principal's permissions and the
 * row filter resolved to this principal (a principal lacking the attribute is denied).
 */
export function sqlCompileContext(
  resource: string,
  spec: SqlResourceSpec,
  permissions: SqlPermissions,
  principal: SqlPrincipal,
  dialect: SqlDialect,
  cursorKey?: string,
): SqlCompileContext {
  const rowFilter = spec.access.rowFilter;
  let pinned: SqlCompileContext['pinned'];
  if (rowFilter !== undefined) {
    const value =
      rowFilter.equals === 'principal.tenant'
        ? principal.tenant
        : rowFilter.equals === 'principal.agent'
          ? principal.agent
          : principal.user;
    if (typeof value !== 'string' || value.length === 0) {
      throw new TollgateError(
        'POLICY_DENIED',
        `${resource} only serves rows scoped to ${rowFilter.equals}, which this call does not have.`,
      );
    }
    pinned = { column: rowFilter.field, value };
  }
  return {
    dialect,
    table: tableOf(spec),
    resource,
    permissions,
    ...(spec.access.maxLimit === undefined ? {} : { maxLimit: spec.access.maxLimit }),
    ...(spec.access.redact === undefined ? {} : { redact: spec.access.redact }),
    ...(pinned === undefined ? {} : { pinned }),
    readonly: spec.access.readonly !== false,
    ...(cursorKey === undefined ? {} : { cursorKey }),
  };
}
