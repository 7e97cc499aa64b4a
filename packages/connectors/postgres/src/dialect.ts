import { createRequire } from 'node:module';
import type { SqlDialect } from '@tollgate/connector-sql';
import type pg from 'pg';

const require = createRequire(import.meta.url);
let dialect: SqlDialect | undefined;

/**
 * PostgreSQL: `$n` parameters (typed by the column they meet), `ILIKE`, `date_trunc`;
 * identifiers quoted by `pg`'s own `escapeIdentifier` (the driver loads on first use).
 */
export function postgresDialect(): SqlDialect {
  if (dialect !== undefined) return dialect;
  const { escapeIdentifier } = require('pg') as typeof pg;
  dialect = {
    name: 'PostgreSQL',
    quoteIdentifier: escapeIdentifier,
    parameter: (index) => `$${index}`,
    caseInsensitiveLike: (column, parameter) => `${column} ILIKE ${parameter}`,
    // PostgreSQL's own default: NULLS LAST ascending, NULLS FIRST descending (index-friendly).
    orderKey: (column, order) => `${column} ${order === 'asc' ? 'ASC' : 'DESC'}`,
    truncateDate: (column, interval) => `date_trunc('${interval}', ${column})`,
    returning: true,
  };
  return dialect;
}
