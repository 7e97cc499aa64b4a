import { TollgateError } from '@tollgate/core';

import type { SqlDialect } from '../dialect.js';
import type { SqlColumnType } from '../model.js';
import type { SqlParameter, SqlStatement } from '../native.js';

/**
 * Where a bound value goes while the text is built (private-use characters). Every real slot
 * appears exactly once, so a declared name that happened to spell one would make a slot appear
 * twice, and the build fails rather than bind a value in the wrong place.
 */
const SLOT = /\uE000(\d+)\uE001/g;

/**
 * Builds one statement: identifiers go through the dialect's quoting, values become bind
 * parameters. There is no way to append a value as text. Conditions may be bound in one order
 * and placed in another (the row filter goes first), so placeholders are numbered, and values
 * ordered, as they appear in the final text — which positional (`?`) dialects need.
 */
export class StatementBuilder {
  /** Bound values in bind order. */
  readonly values: SqlParameter[] = [];
  private readonly types: SqlColumnType[] = [];

  constructor(readonly dialect: SqlDialect) {}

  /** A quoted identifier; callers pass only names taken from the declared schema. */
  id(name: string): string {
    return this.dialect.quoteIdentifier(name);
  }

  /** Binds `value` and returns the slot its placeholder takes in the text. */
  bind(value: SqlParameter, type: SqlColumnType): string {
    this.values.push(value);
    this.types.push(type);
    return `\uE000${this.values.length - 1}\uE001`;
  }

  build(text: string): SqlStatement {
    const values: SqlParameter[] = [];
    const used = new Set<number>();
    const rendered = text.replace(SLOT, (_slot, digits: string) => {
      const slot = Number(digits);
      if (used.has(slot) || slot >= this.values.length) throw misbuilt();
      used.add(slot);
      values.push(this.values[slot] as SqlParameter);
      return this.dialect.parameter(values.length, this.types[slot] as SqlColumnType);
    });
    if (used.size !== this.values.length) throw misbuilt();
    return { text: rendered, values };
  }
}

function misbuilt(): TollgateError {
  return new TollgateError('INTERNAL', 'A statement was built with misplaced parameters.');
}

/** `schema.table`, each part quoted. */
export function qualifiedName(
  dialect: SqlDialect,
  table: { schema?: string; name: string },
): string {
  const name = dialect.quoteIdentifier(table.name);
  return table.schema === undefined ? name : `${dialect.quoteIdentifier(table.schema)}.${name}`;
}
