import type { SqlColumnType, SqlIndex } from '../model.js';

/** One column as the catalog describes it. */
export interface CatalogColumn {
  name: string;
  type: SqlColumnType;
  nullable: boolean;
  /** The column comment. */
  description?: string;
  /** Has a default or is generated (an insert may leave it out). */
  hasDefault: boolean;
}

/** Why something in the table cannot be exposed as is. */
export interface CatalogWarning {
  code:
    | 'unsupported_type'
    | 'not_indexed'
    | 'no_primary_key'
    | 'missing_in_table'
    | 'type_mismatch'
    | 'capability_unsupported';
  column?: string;
  message: string;
}

/** A table or view as discovery read it from the catalog. */
export interface CatalogTable {
  schema: string;
  name: string;
  kind: 'table' | 'view';
  description?: string;
  /** In table order. */
  columns: CatalogColumn[];
  primaryKey: string[];
  indexes: SqlIndex[];
  warnings: CatalogWarning[];
}

/** The warning for a column whose type has no faithful JSON form: it can be returned as text only. */
export function typeWarnings(name: string, type: SqlColumnType): CatalogWarning[] {
  if (type.class !== 'other') return [];
  return [
    {
      code: 'unsupported_type',
      column: name,
      message: `Column "${name}" has type ${type.native}, which has no faithful JSON form; it can be returned as text only.`,
    },
  ];
}

/** Cheap operations on a column: an index (or the key) starts with it. */
export interface ColumnCost {
  /** Equality and range filters can use an index. */
  filter: boolean;
  /** Ordering by it can read an index in order. */
  sort: boolean;
}

/** Which filters and sorts an index makes cheap, per column. */
export function columnCosts(
  table: Pick<CatalogTable, 'indexes' | 'primaryKey'>,
): Map<string, ColumnCost> {
  const costs = new Map<string, ColumnCost>();
  const leading = new Set<string>();
  for (const index of table.indexes)
    if (index.columns[0] !== undefined) leading.add(index.columns[0]);
  if (table.primaryKey[0] !== undefined) leading.add(table.primaryKey[0]);
  for (const name of leading) costs.set(name, { filter: true, sort: true });
  return costs;
}

/**
 * Parses an `enum('a','b''c')` column type into its values; undefined when it is not one.
 * Quotes inside values are doubled by the server.
 */
export function parseEnumValues(columnType: string): string[] | undefined {
  const match = /^(?:enum|set)\((.*)\)$/is.exec(columnType.trim());
  if (match === null) return undefined;
  const values: string[] = [];
  const body = match[1] as string;
  let i = 0;
  while (i < body.length) {
    if (body[i] !== "'") return undefined;
    let value = '';
    i += 1;
    for (;;) {
      if (i >= body.length) return undefined;
      if (body[i] === "'" && body[i + 1] === "'") {
        value += "'";
        i += 2;
      } else if (body[i] === '\\' && i + 1 < body.length) {
        value += body[i + 1];
        i += 2;
      } else if (body[i] === "'") {
        i += 1;
        break;
      } else {
        value += body[i];
        i += 1;
      }
    }
    values.push(value);
    if (body[i] === ',') i += 1;
  }
  return values;
}

/**
 * The table as discovery reports it, from what a kind read of its catalog: the primary key is
 * the primary index's columns, and a table without one is warned about (a view never has one).
 */
export function catalogTable(read: Omit<CatalogTable, 'primaryKey'>): CatalogTable {
  const primaryKey = read.indexes.find((index) => index.primary)?.columns ?? [];
  const warnings = [...read.warnings];
  if (read.kind === 'table' && primaryKey.length === 0) {
    warnings.push({
      code: 'no_primary_key',
      message: `${read.schema}.${read.name} has no primary key: rows cannot be fetched or updated one by one, and search pages cannot continue.`,
    });
  }
  return {
    schema: read.schema,
    name: read.name,
    kind: read.kind,
    ...(read.description === undefined ? {} : { description: read.description }),
    columns: read.columns,
    primaryKey,
    indexes: read.indexes,
    warnings,
  };
}
