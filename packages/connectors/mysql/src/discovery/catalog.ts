import { TollgateError } from '@tollgate/core';
import { catalogTable, typeWarnings } from '@tollgate/connector-sql';
import type {
  CatalogColumn,
  CatalogTable,
  CatalogWarning,
  SqlIndex,
} from '@tollgate/connector-sql';

import { COLUMNS_QUERY, INDEXES_QUERY, JSON_CHECKS_QUERY, TABLE_QUERY } from './queries.js';
import { mysqlColumnType } from './types.js';

type Row = Record<string, unknown>;

/** Something that runs a prepared statement (a connection). */
export interface Queryable {
  execute(text: string, values: string[]): Promise<[unknown, unknown]>;
}

const text = (value: unknown): string | undefined => {
  const s = Buffer.isBuffer(value) ? value.toString('utf8') : value;
  return typeof s === 'string' && s.length > 0 ? s : undefined;
};
const count = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value);

async function rows(db: Queryable, query: string, values: string[]): Promise<Row[]> {
  const [result] = await db.execute(query, values);
  return result as Row[];
}

/** Columns under a `json_valid(col)` check (MariaDB's JSON); none where the server has no such view. */
async function jsonColumns(db: Queryable, schema: string, table: string): Promise<Set<string>> {
  let checks: Row[];
  try {
    checks = await rows(db, JSON_CHECKS_QUERY, [schema, table]);
  } catch (err) {
    // MySQL: no TABLE_NAME there (1054) or no such view (1109); JSON is its own type there.
    const errno = (err as { errno?: unknown }).errno;
    if (errno === 1054 || errno === 1109) return new Set();
    throw err;
  }
  const names = new Set<string>();
  for (const check of checks) {
    const match = /^json_valid\(`((?:[^`]|``)+)`\)$/i.exec(text(check['clause']) ?? '');
    if (match !== null) names.add((match[1] as string).replace(/``/g, '`'));
  }
  return names;
}

/**
 * Reads a table or view from information_schema: columns in table order with their mapped
 * types, nullability and comments, the primary key, indexes, and warnings for what cannot be
 * exposed faithfully. `NOT_FOUND` when there is no such relation (or the login cannot see it).
 */
export async function readCatalog(
  db: Queryable,
  schema: string,
  table: string,
): Promise<CatalogTable> {
  const head = (await rows(db, TABLE_QUERY, [schema, table]))[0];
  if (head === undefined) {
    throw new TollgateError(
      'NOT_FOUND',
      `No table or view ${schema}.${table} is visible to the resource's login.`,
    );
  }
  const json = await jsonColumns(db, schema, table);
  const columnRows = await rows(db, COLUMNS_QUERY, [schema, table]);
  const indexRows = await rows(db, INDEXES_QUERY, [schema, table]);
  const kind = String(head['table_type']).toUpperCase() === 'VIEW' ? 'view' : 'table';
  const warnings: CatalogWarning[] = [];
  const columns: CatalogColumn[] = columnRows.map((row) => {
    const name = String(text(row['name']));
    const maxLength = count(row['max_length']);
    const precision = count(row['num_precision']);
    const scale = count(row['num_scale']);
    const collation = text(row['collation_name']);
    const type = mysqlColumnType({
      dataType: String(text(row['data_type'])),
      columnType: String(text(row['column_type'])),
      ...(maxLength === undefined ? {} : { maxLength }),
      ...(precision === undefined ? {} : { precision }),
      ...(scale === undefined ? {} : { scale }),
      ...(collation === undefined ? {} : { collation }),
      json: json.has(name),
    });
    warnings.push(...typeWarnings(name, type));
    const description = text(row['description']);
    const extra = text(row['extra']) ?? '';
    return {
      name,
      type,
      nullable: text(row['is_nullable']) === 'YES',
      hasDefault:
        row['column_default'] !== null ||
        /auto_increment|generated/i.test(extra) ||
        text(row['is_nullable']) === 'YES',
      ...(description === undefined ? {} : { description }),
    };
  });
  const byName = new Map<string, SqlIndex>();
  const functional = new Set<string>();
  for (const row of indexRows) {
    const column = text(row['column_name']);
    const name = String(text(row['name']));
    const index = byName.get(name) ?? {
      name,
      columns: [],
      unique: Number(row['non_unique']) === 0,
      primary: name === 'PRIMARY',
    };
    // A functional index part (MySQL 8) names no column: the index cannot serve a column filter.
    if (column === undefined) functional.add(name);
    else index.columns.push(column);
    byName.set(name, index);
  }
  const indexes = [...byName.values()].filter((index) => !functional.has(index.name));
  // A view's comment is the word VIEW.
  const description = kind === 'view' ? undefined : text(head['description']);
  return catalogTable({
    schema,
    name: table,
    kind,
    ...(description === undefined ? {} : { description }),
    columns,
    indexes,
    warnings,
  });
}
