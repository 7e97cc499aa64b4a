import { sealQuery, TollgateError } from '@tollgate/core';

import type { OutputColumn, SqlReadRequest } from '../native.js';
import { columnOf } from './context.js';
import type { SqlCompileContext } from './context.js';
import { compileFilters } from './filters.js';
import { readCursor, keysetCondition } from './keyset.js';
import { compileFields, compileLimit, compileSort } from './projection.js';
import { qualifiedName, StatementBuilder } from './statement.js';
import { checkValue } from './values.js';
import { checkKeys, isPlainObject, oneOf, own, Violations } from '@tollgate/core';

/** Counts are exact up to this many rows, then reported as a lower bound. */
export const COUNT_CAP = 10_000;

/** A compiled page: the request plus what the envelope's paging needs. */
export interface CompiledPage {
  request: SqlReadRequest;
  limit: number;
  seal: string;
  continued: boolean;
}

/** The row filter first, then the agent's conditions. */
export function whereClause(
  ctx: SqlCompileContext,
  sql: StatementBuilder,
  conditions: string[],
): string[] {
  if (ctx.pinned === undefined) return conditions;
  const column = columnOf(ctx, ctx.pinned.column);
  if (column === undefined) {
    throw new TollgateError(
      'INTERNAL',
      `${ctx.resource}: the row filter column "${ctx.pinned.column}" is not in the table.`,
    );
  }
  return [`${sql.id(column.name)} = ${sql.bind(ctx.pinned.value, column.type)}`, ...conditions];
}

function where(conditions: string[]): string {
  return conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
}

/** Output columns for `fields`: each as itself. */
function outputs(ctx: SqlCompileContext, fields: string[]): OutputColumn[] {
  return fields.map((name) => ({
    name,
    type: (columnOf(ctx, name) as NonNullable<ReturnType<typeof columnOf>>).type,
  }));
}

/** `<name>_search` → one keyset page: `LIMIT limit+1` tells whether more rows follow. */
export function compileSearch(args: unknown, ctx: SqlCompileContext): CompiledPage {
  const violations = new Violations();
  if (!checkKeys(args, ['filters', 'fields', 'sort', 'limit', 'cursor'], '', violations))
    violations.throwIfAny('search');
  const input = args as Record<string, unknown>;
  const sql = new StatementBuilder(ctx.dialect);
  const conditions = whereClause(
    ctx,
    sql,
    compileFilters(own(input, 'filters'), ctx, sql, violations),
  );
  const fields = compileFields(own(input, 'fields'), ctx, violations);
  const keys = compileSort(own(input, 'sort'), ctx, violations);
  const limit = compileLimit(own(input, 'limit'), ctx, violations);
  const cursor = own(input, 'cursor');
  if (cursor !== undefined && cursor !== null && typeof cursor !== 'string') {
    violations.add('cursor', 'expected a cursor string from a previous page', 'string', cursor);
  }
  violations.throwIfAny('search');

  const table = qualifiedName(ctx.dialect, ctx.table);
  const seal = sealQuery(
    {
      resource: ctx.resource,
      table,
      conditions,
      values: sql.values,
      keys: keys.map((k) => [k.column.name, k.order]),
      fields,
    },
    ctx.cursorKey,
  );
  const continued = typeof cursor === 'string';
  if (continued) conditions.push(keysetCondition(keys, readCursor(cursor, seal, keys), sql));

  const keyAliases = keys.map((_key, i) => `__k${i}`);
  const select = [
    ...fields.map((name) => sql.id(name)),
    ...keys.map((key, i) => `${sql.id(key.column.name)} AS ${sql.id(keyAliases[i] as string)}`),
  ];
  const order = keys.map((key) =>
    ctx.dialect.orderKey(sql.id(key.column.name), key.order, key.column.nullable),
  );
  const text =
    `SELECT ${select.length === 0 ? '1' : select.join(', ')} FROM ${table}${where(conditions)}` +
    `${order.length === 0 ? '' : ` ORDER BY ${order.join(', ')}`} LIMIT ${limit + 1}`;
  const columns = [
    ...outputs(ctx, fields),
    ...keys.map((key, i) => ({ name: keyAliases[i] as string, type: key.column.type })),
  ];
  return {
    request: {
      mode: 'read',
      result: 'rows',
      statement: sql.build(text),
      columns,
      keys: keyAliases,
    },
    limit,
    seal,
    continued,
  };
}

/** `<name>_get` → the row with this primary key, inside the row filter. */
export function compileGet(args: unknown, ctx: SqlCompileContext): SqlReadRequest {
  const violations = new Violations();
  if (!checkKeys(args, ['id', 'key', 'fields'], '', violations)) violations.throwIfAny('get');
  const input = args as Record<string, unknown>;
  const sql = new StatementBuilder(ctx.dialect);
  const keyConditions = compileKey(input, ctx, sql, violations);
  const fields = compileFields(own(input, 'fields'), ctx, violations);
  violations.throwIfAny('get');
  const conditions = whereClause(ctx, sql, keyConditions);
  const select = fields.length === 0 ? '1' : fields.map((name) => sql.id(name)).join(', ');
  const text = `SELECT ${select} FROM ${qualifiedName(ctx.dialect, ctx.table)}${where(conditions)} LIMIT 1`;
  return { mode: 'read', result: 'row', statement: sql.build(text), columns: outputs(ctx, fields) };
}

/**
 * The primary key of one row: `id` for a single-column key, `key: {column: value}` naming
 * every key column for a composite one. Returns the equality conditions.
 */
export function compileKey(
  input: Record<string, unknown>,
  ctx: SqlCompileContext,
  sql: StatementBuilder,
  violations: Violations,
  values: Record<string, string | number | boolean | null> = {},
): string[] {
  const pk = ctx.table.primaryKey;
  if (pk.length === 0) {
    throw new TollgateError(
      'UNKNOWN_TOOL',
      `${ctx.resource} has no primary key, so rows cannot be addressed one by one.`,
    );
  }
  const given: Record<string, unknown> = {};
  const id = own(input, 'id');
  const key = own(input, 'key');
  if (pk.length === 1 && id !== undefined && id !== null && (key === undefined || key === null)) {
    given[pk[0] as string] = id;
  } else if (pk.length > 1 || (key !== undefined && key !== null)) {
    if (id !== undefined && id !== null)
      violations.add('id', `${ctx.resource} has a composite key; give "key" instead`, 'null', id);
    if (!checkKeys(key, pk, 'key', violations)) return [];
    Object.assign(given, key);
  } else {
    violations.add('id', `expected the primary key value (${pk[0]})`, 'a value', id);
    return [];
  }
  const conditions: string[] = [];
  for (const name of pk) {
    const column = columnOf(ctx, name);
    const raw = isPlainObject(given) ? own(given, name) : undefined;
    const path = pk.length === 1 && id !== undefined && id !== null ? 'id' : `key.${name}`;
    if (column === undefined) continue;
    if (raw === undefined || raw === null) {
      violations.add(path, `missing key column "${name}"`, oneOf(pk));
      continue;
    }
    const value = checkValue(raw, column.type, path, violations, Number.MAX_SAFE_INTEGER);
    if (value === undefined) continue;
    values[name] = value;
    conditions.push(`${sql.id(name)} = ${sql.bind(value, column.type)}`);
  }
  return conditions;
}

/** `<name>_count` → `COUNT(*)` over at most `COUNT_CAP + 1` matching rows. */
export function compileCount(args: unknown, ctx: SqlCompileContext): SqlReadRequest {
  const violations = new Violations();
  if (!checkKeys(args, ['filters'], '', violations)) violations.throwIfAny('count');
  const sql = new StatementBuilder(ctx.dialect);
  const conditions = whereClause(
    ctx,
    sql,
    compileFilters(own(args as Record<string, unknown>, 'filters'), ctx, sql, violations),
  );
  violations.throwIfAny('count');
  const inner = `SELECT 1 FROM ${qualifiedName(ctx.dialect, ctx.table)}${where(conditions)} LIMIT ${COUNT_CAP + 1}`;
  const text = `SELECT COUNT(*) AS ${sql.id('count')} FROM (${inner}) AS ${sql.id('matched')}`;
  return {
    mode: 'read',
    result: 'count',
    statement: sql.build(text),
    columns: [{ name: 'count', type: { class: 'integer', native: 'bigint', bits: 64 } }],
    countCap: COUNT_CAP,
  };
}
