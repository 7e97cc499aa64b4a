import { TollgateError } from '@tollgate/core';
import { catalogTable, typeWarnings } from '@tollgate/connector-sql';
import type {
  CatalogColumn,
  CatalogTable,
  CatalogWarning,
  SqlIndex,
} from '@tollgate/connector-sql';

import { COLUMNS_QUERY, INDEXES_QUERY, TABLE_QUERY } from './queries.js';
import { pgColumnType } from './types.js';

/** Something that runs a parameterized query (a pool or a client). */
export interface Queryable {
  query(text: string, values: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined;
const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/**
 * Reads a table or view from the catalog: columns in table order with their mapped types,
 * nullability and comments, the primary key, valid indexes, and warnings for what cannot be
 * exposed faithfully. `NOT_FOUND` when there is no such relation (or the login cannot see it).
 */
export async function readCatalog(
  db: Queryable,
  schema: string,
  table: string,
): Promise<CatalogTable> {
  const [relation, columnRows, indexRows] = [
    await db.query(TABLE_QUERY, [schema, table]),
    await db.query(COLUMNS_QUERY, [schema, table]),
    await db.query(INDEXES_QUERY, [schema, table]),
  ];
  const head = relation.rows[0];
  if (head === undefined) {
    throw new TollgateError(
      'NOT_FOUND',
      `No table or view ${schema}.${table} is visible to the resource's login.`,
    );
  }
  const warnings: CatalogWarning[] = [];
  const columns: CatalogColumn[] = columnRows.rows.map((row) => {
    const elemTypname = text(row['elem_typname']);
    const type = pgColumnType({
      formatted: String(row['formatted']),
      typname: String(row['typname']),
      typtype: String(row['typtype']),
      ...(Array.isArray(row['enum_values']) ? { enumValues: list(row['enum_values']) } : {}),
      ...(elemTypname === undefined
        ? {}
        : {
            element: {
              typname: elemTypname,
              typtype: String(row['elem_typtype']),
              formatted: String(row['elem_formatted']),
              ...(Array.isArray(row['elem_enum_values'])
                ? { enumValues: list(row['elem_enum_values']) }
                : {}),
            },
          }),
    });
    const name = String(row['name']);
    warnings.push(...typeWarnings(name, type));
    const description = text(row['description']);
    return {
      name,
      type,
      nullable: row['nullable'] === true,
      hasDefault: row['has_default'] === true,
      ...(description === undefined ? {} : { description }),
    };
  });
  const indexes: SqlIndex[] = indexRows.rows.map((row) => ({
    name: String(row['name']),
    columns: list(row['columns']),
    unique: row['is_unique'] === true,
    primary: row['is_primary'] === true,
  }));
  const relkind = String(head['relkind']);
  const kind = relkind === 'r' || relkind === 'p' ? 'table' : 'view';
  const description = text(head['description']);
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
