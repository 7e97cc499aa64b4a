import { decodeCursor, TollgateError } from '@tollgate/core';
import type { CursorValue } from '@tollgate/core';

import type { SqlParameter } from '../native.js';
import type { SortKey } from './projection.js';
import type { StatementBuilder } from './statement.js';
import { checkValue } from './values.js';
import { Violations } from '@tollgate/core';

/**
 * The condition selecting rows strictly after `after` in the order of `keys` (nulls last
 * ascending, first descending), expanded as `k1 > v1 OR (k1 = v1 AND k2 > v2) OR …` so mixed
 * directions and nullable keys work on every server; a plain row comparison when every key is
 * ascending and not null (the form index range scans read best).
 */
export function keysetCondition(
  keys: readonly SortKey[],
  after: readonly SqlParameter[],
  sql: StatementBuilder,
): string {
  const simple =
    keys.every((key) => key.order === 'asc' && !key.column.nullable) &&
    after.every((v) => v !== null);
  if (simple) {
    const columns = keys.map((key) => sql.id(key.column.name));
    const values = keys.map((key, i) => sql.bind(after[i] as SqlParameter, key.column.type));
    return keys.length === 1
      ? `${columns[0]} > ${values[0]}`
      : `(${columns.join(', ')}) > (${values.join(', ')})`;
  }
  const branches: string[] = [];
  for (let i = 0; i < keys.length; i += 1) {
    const parts: string[] = [];
    for (let j = 0; j < i; j += 1) parts.push(equal(keys[j] as SortKey, after[j] ?? null, sql));
    const beyond = greater(keys[i] as SortKey, after[i] ?? null, sql);
    if (beyond === 'FALSE') continue;
    parts.push(beyond);
    branches.push(parts.length === 1 ? (parts[0] as string) : `(${parts.join(' AND ')})`);
  }
  return branches.length === 0 ? '1 = 0' : `(${branches.join(' OR ')})`;
}

function equal(key: SortKey, value: SqlParameter, sql: StatementBuilder): string {
  const id = sql.id(key.column.name);
  return value === null ? `${id} IS NULL` : `${id} = ${sql.bind(value, key.column.type)}`;
}

/** Rows after `value` on this key alone. */
function greater(key: SortKey, value: SqlParameter, sql: StatementBuilder): string {
  const id = sql.id(key.column.name);
  if (key.order === 'asc') {
    if (value === null) return 'FALSE'; // nulls are last: nothing comes after them
    const bound = `${id} > ${sql.bind(value, key.column.type)}`;
    return key.column.nullable ? `(${bound} OR ${id} IS NULL)` : bound;
  }
  if (value === null) return `${id} IS NOT NULL`; // nulls are first descending
  return `${id} < ${sql.bind(value, key.column.type)}`;
}

/**
 * Reads a cursor sealed for this query and checks each position value against its key column,
 * so even a cursor signed with a leaked key cannot carry a value the column could not hold.
 */
export function readCursor(cursor: string, seal: string, keys: readonly SortKey[]): SqlParameter[] {
  const after: CursorValue[] = decodeCursor(cursor, seal, keys.length);
  const violations = new Violations();
  const values = after.map((value, i) => {
    const key = keys[i] as SortKey;
    if (value === null) {
      if (!key.column.nullable) violations.add('cursor', 'cursor is not one this tool issued');
      return null;
    }
    return (
      checkValue(value, key.column.type, 'cursor', violations, Number.MAX_SAFE_INTEGER) ?? null
    );
  });
  if (violations.count > 0) {
    throw new TollgateError(
      'ARGUMENTS_INVALID',
      'Invalid cursor: cursor is not one this tool issued; omit it to start from the first page.',
      {
        details: [
          {
            path: 'cursor',
            message: 'cursor is not one this tool issued',
            expected: 'a cursor returned by the same query',
          },
        ],
      },
    );
  }
  return values;
}
