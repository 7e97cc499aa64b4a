import { escapeIdentifier } from 'pg';
import type { SqlDialect } from '@tollgate/connector-sql';

/** PostgreSQL: `$n` parameters (typed by the column they meet), `ILIKE`, `date_trunc`. */
export const postgresDialect: SqlDialect = {
  name: 'PostgreSQL',
  quoteIdentifier: escapeIdentifier,
  parameter: (index) => `$${index}`,
  caseInsensitiveLike: (column, parameter) => `${column} ILIKE ${parameter}`,
  // PostgreSQL's own default: NULLS LAST ascending, NULLS FIRST descending (index-friendly).
  orderKey: (column, order) => `${column} ${order === 'asc' ? 'ASC' : 'DESC'}`,
  truncateDate: (column, interval) => `date_trunc('${interval}', ${column})`,
  returning: true,
};
