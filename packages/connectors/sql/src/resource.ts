/**
 * From a resource version to what the SQL compiler and shaper read: the table model (built
 * once per version) and the compile context of one call, with the row filter resolved to the
 * principal and the redactions that apply to them.
 */
import { CAPABILITIES, effectiveRedactions, TollgateError } from '@tollgate/core';
import type { AccessSpec, CompileContext, ResourceDescriptor } from '@tollgate/core';

import type { SqlDialect } from './dialect.js';
import type { SqlColumn, SqlColumnType, SqlTable } from './model.js';
import type { SqlCompileContext } from './compile/context.js';
import { primaryKeyOf } from './kind/model.js';
import type { SqlConnection, SqlField, SqlTarget } from './kind/spec.js';

/** The `spec` of a resource of a SQL kind (each kind names its own `type`). */
export interface SqlResourceSpec {
  type: string;
  connection: SqlConnection;
  target: SqlTarget;
  schema: { fields: Record<string, SqlField> };
  access: AccessSpec;
}

/** The SQL spec of a validated descriptor of either kind. */
export function sqlSpec(descriptor: Pick<ResourceDescriptor, 'spec'>): SqlResourceSpec {
  return descriptor.spec as unknown as SqlResourceSpec;
}

/** The column type of a declared field: its class plus what discovery found. */
export function columnTypeOf(field: SqlField): SqlColumnType {
  const {
    nullable: _n,
    primaryKey: _p,
    indexed: _i,
    element,
    native,
    ...facts
  } = field.column ?? {};
  const type: SqlColumnType = {
    ...facts,
    class: field.type,
    native: native ?? field.type,
    // A column discovery has not seen is treated as the widest of its class.
    ...(field.type === 'integer' && facts.bits === undefined ? { bits: 64 } : {}),
  };
  if (element !== undefined) {
    const { class: cls, native: elementNative, ...rest } = element;
    type.element = { ...rest, class: cls, native: elementNative ?? cls };
  }
  return type;
}

const tables = new WeakMap<object, SqlTable>();

/** The table model compile and shape use, built once per (merged) resource spec. */
export function tableOf(spec: SqlResourceSpec): SqlTable {
  const cached = tables.get(spec.schema.fields);
  if (cached !== undefined && cached.name === spec.target.table) return cached;
  const columns = new Map<string, SqlColumn>();
  for (const name of Object.keys(spec.schema.fields)) {
    const field = Object.getOwnPropertyDescriptor(spec.schema.fields, name)?.value as SqlField;
    const column: SqlColumn = {
      name,
      type: columnTypeOf(field),
      nullable: field.column?.nullable !== false,
    };
    for (const capability of CAPABILITIES)
      if (field[capability] === true) column[capability] = true;
    if (field.description !== undefined) column.description = field.description;
    columns.set(name, column);
  }
  const table: SqlTable = {
    ...(spec.target.schema === undefined ? {} : { schema: spec.target.schema }),
    name: spec.target.table,
    kind: 'table',
    columns,
    primaryKey: primaryKeyOf(spec.schema.fields),
  };
  tables.set(spec.schema.fields, table);
  return table;
}

/**
 * The compile context of one call: the resource's table, the principal's permissions and the
 * row filter resolved to this principal (a principal lacking the attribute is denied).
 */
export function sqlCompileContext(ctx: CompileContext, dialect: SqlDialect): SqlCompileContext {
  const spec = sqlSpec(ctx.descriptor);
  const resource = ctx.descriptor.metadata.name;
  const { principal } = ctx;
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
  const redact = effectiveRedactions(spec.access, ctx.permissions);
  return {
    dialect,
    table: tableOf(spec),
    resource,
    permissions: ctx.permissions,
    ...(spec.access.maxLimit === undefined ? {} : { maxLimit: spec.access.maxLimit }),
    ...(Object.keys(redact).length === 0 ? {} : { redact }),
    ...(pinned === undefined ? {} : { pinned }),
    readonly: spec.access.readonly !== false,
    ...(ctx.cursorKey === undefined ? {} : { cursorKey: ctx.cursorKey }),
  };
}
