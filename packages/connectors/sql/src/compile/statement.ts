import type { SqlDialect } from '../dialect.js';
import type { SqlColumnType } from '../model.js';
import type { SqlParameter, SqlStatement } from '../native.js';

/**
 * Builds one statement: identifiers go through the dialect's quoting, values become numbered
 * bind parameters. There is no way to append a value as text.
 */
export class StatementBuilder {
  readonly values: SqlParameter[] = [];

  constructor(readonly dialect: SqlDialect) {}

  /** A quoted identifier; callers pass only names taken from the declared schema. */
  id(name: string): string {
    return this.dialect.quoteIdentifier(name);
  }

  /** Binds `value` and returns its placeholder. */
  bind(value: SqlParameter, type: SqlColumnType): string {
    this.values.push(value);
    return this.dialect.parameter(this.values.length, type);
  }

  build(text: string): SqlStatement {
    return { text, values: [...this.values] };
  }
}

/** `schema.table`, each part quoted. */
export function qualifiedName(
  dialect: SqlDialect,
  table: { schema?: string; name: string },
): string {
  const name = dialect.quoteIdentifier(table.name);
  return table.schema === undefined ? name : `${dialect.quoteIdentifier(table.schema)}.${name}`;
}
