import { TollgateError } from '@tollgate/core';

import type { SqlParameter, SqlStatement, SqlWriteRequest } from '../native.js';
import { columnOf } from './context.js';
import type { SqlCompileContext } from './context.js';
import { visibleColumns } from './projection.js';
import { compileKey, whereClause } from './read.js';
import { qualifiedName, StatementBuilder } from './statement.js';
import { checkValue, MAX_WRITE_STRING } from './values.js';
import { checkKeys, isPlainObject, oneOf, own, Violations } from '@tollgate/core';

export const MAX_DOCUMENT_FIELDS = 100;

/** Which statements a write operation runs. */
export type WriteMode = 'insert' | 'update' | 'upsert';

/**
 * Columns this principal may set: those they may see (not dropped), of a class a value can be
 * written to (no binary, array or opaque columns), never the row filter's column.
 */
export function writableColumns(ctx: SqlCompileContext): string[] {
  return visibleColumns(ctx).filter((name) => {
    const column = columnOf(ctx, name);
    if (column === undefined || name === ctx.pinned?.column) return false;
    return !['binary', 'array', 'other'].includes(column.type.class);
  });
}

/**
 * `insert` (`{values}`), `update` (`{id | key, values}`) and `write` (both: update the row
 * when it exists inside the row filter, insert it otherwise). Values are checked against their
 * columns and bound; `null` means "not given". The row filter column is set by the platform:
 * an insert always carries the principal's value and an update only ever matches rows that
 * already have it, so no row outside the principal's scope can be created, changed or taken over.
 */
export function compileWrite(
  mode: WriteMode,
  args: unknown,
  ctx: SqlCompileContext,
): SqlWriteRequest {
  const operation = mode === 'upsert' ? 'write' : mode;
  if (ctx.readonly) {
    throw new TollgateError(
      'POLICY_DENIED',
      `${ctx.resource} is read-only; ${operation} is not available.`,
    );
  }
  const violations = new Violations();
  const allowed = mode === 'insert' ? ['values'] : ['id', 'key', 'values'];
  if (!checkKeys(args, allowed, '', violations)) violations.throwIfAny(operation);
  const input = args as Record<string, unknown>;
  const document = checkDocument(own(input, 'values'), ctx, violations, mode === 'insert');

  const key: Record<string, SqlParameter> = {};
  const table = qualifiedName(ctx.dialect, ctx.table);
  let update: SqlStatement | undefined;
  let insert: SqlStatement | undefined;
  let insertId: string | undefined;
  if (mode !== 'insert') {
    const sql = new StatementBuilder(ctx.dialect);
    const sets = [...document.entries()]
      .filter(([name]) => !ctx.table.primaryKey.includes(name))
      .map(
        ([name, value]) =>
          `${sql.id(name)} = ${sql.bind(value, (columnOf(ctx, name) as NonNullable<ReturnType<typeof columnOf>>).type)}`,
      );
    const keyConditions = compileKey(input, ctx, sql, violations, key);
    for (const name of ctx.table.primaryKey) {
      if (document.has(name) && key[name] !== undefined && document.get(name) !== key[name]) {
        violations.add(
          `values.${name}`,
          'the primary key cannot be changed',
          JSON.stringify(key[name]),
          document.get(name),
        );
      }
    }
    if (sets.length === 0 && mode === 'update') {
      violations.add(
        'values',
        'nothing to change: give at least one non-key field',
        'object with a writable field',
        own(input, 'values'),
      );
    }
    const conditions = whereClause(ctx, sql, keyConditions);
    // An empty SET still proves the row exists in scope: set the first key column to itself.
    const assignments =
      sets.length > 0
        ? sets
        : [
            `${sql.id(ctx.table.primaryKey[0] as string)} = ${sql.id(ctx.table.primaryKey[0] as string)}`,
          ];
    update = sql.build(
      `UPDATE ${table} SET ${assignments.join(', ')} WHERE ${conditions.join(' AND ')}`,
    );
  }
  if (mode !== 'update') {
    const sql = new StatementBuilder(ctx.dialect);
    const values = new Map(document);
    for (const [name, value] of Object.entries(key)) values.set(name, value);
    if (ctx.pinned !== undefined) values.set(ctx.pinned.column, ctx.pinned.value);
    const names = [...values.keys()];
    const placeholders = names.map((name) =>
      sql.bind(
        values.get(name) as SqlParameter,
        (columnOf(ctx, name) as NonNullable<ReturnType<typeof columnOf>>).type,
      ),
    );
    const returning =
      ctx.dialect.returning && ctx.table.primaryKey.length > 0
        ? ` RETURNING ${ctx.table.primaryKey.map((n) => sql.id(n)).join(', ')}`
        : '';
    insert = sql.build(
      `INSERT INTO ${table} (${names.map((n) => sql.id(n)).join(', ')}) VALUES (${placeholders.join(', ')})${returning}`,
    );
    if (mode === 'insert')
      for (const name of ctx.table.primaryKey)
        if (document.has(name)) key[name] = document.get(name) as SqlParameter;
    const [only, ...more] = ctx.table.primaryKey;
    if (!ctx.dialect.returning && only !== undefined && more.length === 0 && !values.has(only))
      insertId = only;
  }
  violations.throwIfAny(operation);
  return {
    mode: 'write',
    result: 'write',
    ...(update === undefined ? {} : { update }),
    ...(insert === undefined ? {} : { insert }),
    key,
    ...(insertId === undefined ? {} : { insertId }),
  };
}

function checkDocument(
  raw: unknown,
  ctx: SqlCompileContext,
  violations: Violations,
  insert: boolean,
): Map<string, SqlParameter> {
  const out = new Map<string, SqlParameter>();
  if (
    !isPlainObject(raw) ||
    Object.keys(raw).length === 0 ||
    Object.keys(raw).length > MAX_DOCUMENT_FIELDS
  ) {
    const expected = `object with 1 to ${MAX_DOCUMENT_FIELDS} fields`;
    violations.add('values', `expected an ${expected}`, expected, raw);
    return out;
  }
  const writable = writableColumns(ctx);
  // An insert names its key in the document; visible key columns are writable there.
  const keyColumns = insert
    ? ctx.table.primaryKey.filter((name) => visibleColumns(ctx).includes(name))
    : [];
  for (const name of Object.keys(raw).sort()) {
    const path = `values.${name}`;
    const value = raw[name];
    if (name === ctx.pinned?.column) {
      if (value !== null && value !== ctx.pinned.value) {
        violations.add(
          path,
          `"${name}" is set by the platform; omit it`,
          JSON.stringify(ctx.pinned.value),
          value,
        );
      }
      continue;
    }
    const column =
      writable.includes(name) || keyColumns.includes(name) ? columnOf(ctx, name) : undefined;
    if (column === undefined) {
      violations.add(path, `field "${name}" is not writable`, oneOf(writable), name);
      continue;
    }
    if (value === null || value === undefined) continue;
    if (column.type.class === 'json') {
      const text = JSON.stringify(value);
      if (text.length > MAX_WRITE_STRING)
        violations.add(
          path,
          `JSON value is longer than ${MAX_WRITE_STRING} characters`,
          'smaller JSON',
          value,
        );
      else out.set(name, text);
      continue;
    }
    const checked = checkValue(value, column.type, path, violations, MAX_WRITE_STRING);
    if (checked !== undefined) out.set(name, checked);
  }
  return out;
}
