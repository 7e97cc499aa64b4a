import type { SqlColumn } from '../model.js';
import type { SqlParameter } from '../native.js';
import { columnOf } from './context.js';
import type { SqlCompileContext } from './context.js';
import { filterOpsForColumn } from './operators.js';
import type { SqlFilterOp } from './operators.js';
import type { StatementBuilder } from './statement.js';
import { checkValue } from './values.js';
import {
  checkFilterList,
  checkFilterOp,
  checkKeys,
  checkValueList,
  MAX_IN_VALUES,
  oneOf,
  own,
} from '@tollgate/core';
import type { Violations } from '@tollgate/core';
/** The escape character of every LIKE pattern the compiler writes. */
export const LIKE_ESCAPE = '!';

/** The agent's text as a LIKE pattern that matches it literally. */
export function escapeLike(text: string): string {
  return text.replace(/[!%_]/g, (char) => `${LIKE_ESCAPE}${char}`);
}

/**
 * The agent's `filters` as SQL conditions (to be ANDed). Each field must be filterable for this
 * principal and the operator allowed for its column; every value is checked against the column
 * type and bound as a parameter.
 */
export function compileFilters(
  raw: unknown,
  ctx: SqlCompileContext,
  sql: StatementBuilder,
  violations: Violations,
): string[] {
  const entries = checkFilterList(raw, violations);
  const filterable = new Set(ctx.permissions.filterableFields);
  const conditions: string[] = [];
  entries?.forEach((entry: unknown, index) => {
    const path = `filters[${index}]`;
    if (!checkKeys(entry, ['field', 'op', 'value'], path, violations)) return;
    const field = own(entry, 'field');
    const column =
      typeof field === 'string' && filterable.has(field) ? columnOf(ctx, field) : undefined;
    const allowed = column === undefined ? [] : filterOpsForColumn(column);
    if (typeof field !== 'string' || column === undefined || allowed.length === 0) {
      const message =
        typeof field === 'string' ? `field "${field}" is not filterable` : 'expected a field name';
      violations.add(`${path}.field`, message, oneOf(filterableNames(ctx)), field);
      return;
    }
    const op = checkFilterOp(own(entry, 'op'), allowed, field, column.type.class, path, violations);
    if (op === undefined) return;
    const condition = compileFilter(
      column,
      op as SqlFilterOp,
      own(entry, 'value'),
      `${path}.value`,
      sql,
      violations,
    );
    if (condition !== undefined) conditions.push(condition);
  });
  return conditions;
}

/** Filterable fields that have at least one operator, sorted. */
export function filterableNames(ctx: SqlCompileContext): string[] {
  return ctx.permissions.filterableFields
    .filter((name) => {
      const column = columnOf(ctx, name);
      return column !== undefined && filterOpsForColumn(column).length > 0;
    })
    .sort();
}

function compileFilter(
  column: SqlColumn,
  op: SqlFilterOp,
  value: unknown,
  path: string,
  sql: StatementBuilder,
  violations: Violations,
): string | undefined {
  const id = sql.id(column.name);
  const one = (): SqlParameter | undefined => checkValue(value, column.type, path, violations);
  switch (op) {
    case 'exists':
      if (value !== undefined && value !== null) {
        violations.add(path, 'exists takes no value', 'null', value);
        return undefined;
      }
      return `${id} IS NOT NULL`;
    case 'is_null':
      if (typeof value !== 'boolean') {
        violations.add(
          path,
          'is_null takes true (no value) or false (has a value)',
          'boolean',
          value,
        );
        return undefined;
      }
      return value ? `${id} IS NULL` : `${id} IS NOT NULL`;
    case 'in': {
      const list = checkList(value, column, path, violations, 1, MAX_IN_VALUES);
      if (list === undefined) return undefined;
      return `${id} IN (${list.map((item) => sql.bind(item, column.type)).join(', ')})`;
    }
    case 'between': {
      const bounds = checkList(value, column, path, violations, 2, 2);
      if (bounds === undefined) return undefined;
      const [low, high] = bounds as [SqlParameter, SqlParameter];
      if (compareValues(low, high, column) > 0) {
        violations.add(
          path,
          'lower bound is greater than upper bound',
          '[low, high] with low <= high',
          value,
        );
        return undefined;
      }
      return `${id} BETWEEN ${sql.bind(low, column.type)} AND ${sql.bind(high, column.type)}`;
    }
    case 'prefix':
    case 'contains': {
      const text = one();
      if (text === undefined) return undefined;
      const pattern =
        op === 'prefix' ? `${escapeLike(String(text))}%` : `%${escapeLike(String(text))}%`;
      const parameter = sql.bind(pattern, { class: 'string', native: 'text' });
      return `${sql.dialect.caseInsensitiveLike(id, parameter, column.type)} ESCAPE '${LIKE_ESCAPE}'`;
    }
    default: {
      const scalar = one();
      if (scalar === undefined) return undefined;
      const operator = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' }[op];
      return `${id} ${operator} ${sql.bind(scalar, column.type)}`;
    }
  }
}

function checkList(
  value: unknown,
  column: SqlColumn,
  path: string,
  violations: Violations,
  min: number,
  max: number,
): SqlParameter[] | undefined {
  return checkValueList(value, min, max, path, violations, (item, itemPath) =>
    checkValue(item, column.type, itemPath, violations),
  );
}

/** Orders two checked values of one column (decimal and 64-bit strings compared exactly). */
export function compareValues(a: SqlParameter, b: SqlParameter, column: SqlColumn): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (column.type.class === 'integer') return Number(BigInt(String(a)) - BigInt(String(b)));
  if (column.type.class === 'decimal') return compareDecimals(String(a), String(b));
  // Dates and normalized date-times compare as text.
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function compareDecimals(a: string, b: string): number {
  const scale = Math.max(fractionLength(a), fractionLength(b));
  const scaled = (text: string): bigint => {
    const negative = text.startsWith('-');
    const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
    const digits = BigInt(`${whole}${fraction.padEnd(scale, '0')}`);
    return negative ? -digits : digits;
  };
  const diff = scaled(a) - scaled(b);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}

function fractionLength(text: string): number {
  const point = text.indexOf('.');
  return point < 0 ? 0 : text.length - point - 1;
}
