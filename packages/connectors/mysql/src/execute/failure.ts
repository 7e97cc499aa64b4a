import { NETWORK_ERROR_CODES } from '@tollgate/connector-sql';
import type { SqlFailure } from '@tollgate/connector-sql';

/** Node's network errors and the driver's own for a lost connection. */
const NETWORK = new Set([
  ...NETWORK_ERROR_CODES,
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_PACKETS_OUT_OF_ORDER',
  'ER_CON_COUNT_ERROR',
]);
/** Server gone, connection lost, too many connections, shutting down, unknown thread. */
const UNAVAILABLE = new Set([
  1040, 1053, 1077, 1081, 1152, 1158, 1159, 1160, 1161, 2002, 2003, 2006, 2013, 1927,
]);
/** Deadlock and lock wait timeout: the statement lost to a concurrent transaction. */
const CONFLICT = new Set([1205, 1213]);
/** Statement time limit (MySQL 3024, MariaDB 1969), query interrupted (1317). */
const TIMEOUT = new Set([3024, 1969, 1317]);
const DUPLICATE = new Set([1062, 1586]);
/** Not null, no default, foreign keys, check constraints. */
const CONSTRAINT = new Set([1048, 1364, 1216, 1217, 1451, 1452, 3819, 4025]);
/** Out of range, truncated, wrong value for the column. */
const VALUE = new Set([1264, 1265, 1292, 1366, 1367, 1406, 1416, 3140]);
const LOGIN = new Set([1044, 1045, 1698, 1862, 1251]);
const PRIVILEGE = new Set([1142, 1143, 1227, 1370]);
/** A change refused by a read-only transaction or server. */
const READ_ONLY = new Set([1792, 1290, 1836]);
/** No such table or column, a view that no longer resolves. */
const SCHEMA = new Set([1054, 1146, 1356, 1049]);

/**
 * Classifies a `mysql2` failure by the server's error number (or the client's code). The
 * message is written here, never copied from the server: server messages quote values
 * (`Duplicate entry '…' for key`, `Incorrect integer value: '…'`). The cause names only the code.
 */
export function classifyMysqlFailure(
  err: unknown,
  resource: string,
  cancelled: boolean,
): SqlFailure {
  const { errno, code } = (err ?? {}) as { errno?: unknown; code?: unknown };
  const number = typeof errno === 'number' ? errno : undefined;
  const name = typeof code === 'string' ? code : '';
  const message = err instanceof Error ? err.message : '';
  const cause = `mysql ${number ?? (name || 'client error')}`;
  const fail = (failure: Omit<SqlFailure, 'cause'>): SqlFailure => ({ ...failure, cause });
  if (cancelled)
    return fail({
      code: 'UPSTREAM_TIMEOUT',
      retryable: false,
      message: `The call was cancelled before MySQL answered for ${resource}.`,
    });
  if (
    (number !== undefined && TIMEOUT.has(number)) ||
    name === 'PROTOCOL_SEQUENCE_TIMEOUT' ||
    /inactivity timeout/i.test(message)
  ) {
    return fail({
      code: 'UPSTREAM_TIMEOUT',
      retryable: true,
      message: `MySQL did not answer within the resource timeout for ${resource}.`,
    });
  }
  if (number !== undefined && CONFLICT.has(number)) {
    return fail({
      code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
      message: `MySQL aborted the statement for ${resource} because of a conflicting transaction (deadlock or lock wait); try again.`,
    });
  }
  if (
    NETWORK.has(name) ||
    (number !== undefined && UNAVAILABLE.has(number)) ||
    /connection (is in closed state|lost)|Pool is closed|connect/i.test(message)
  ) {
    return fail({
      code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
      message: `MySQL is unreachable for ${resource}.`,
    });
  }
  const known = (set: Set<number>): boolean => number !== undefined && set.has(number);
  if (known(DUPLICATE))
    return fail({
      code: 'ALREADY_EXISTS',
      retryable: false,
      message: `A row with this key already exists in ${resource} (or is outside what you may change).`,
    });
  if (known(CONSTRAINT))
    return fail({
      code: 'UPSTREAM_REJECTED',
      retryable: false,
      message: `MySQL refused the write to ${resource}: a constraint (not null, check or foreign key) does not hold (error ${number}).`,
    });
  if (known(VALUE))
    return fail({
      code: 'UPSTREAM_REJECTED',
      retryable: false,
      message: `MySQL refused a value for ${resource} (error ${number}: out of range or malformed).`,
    });
  if (known(LOGIN))
    return fail({
      code: 'CREDENTIAL_UNAVAILABLE',
      retryable: false,
      message: `MySQL refused the login of ${resource}; check its credential.`,
    });
  if (known(PRIVILEGE))
    return fail({
      code: 'UPSTREAM_REJECTED',
      retryable: false,
      message: `The login of ${resource} may not do this on the table (error ${number}).`,
    });
  if (known(READ_ONLY))
    return fail({
      code: 'INTERNAL',
      retryable: false,
      message: `A read of ${resource} tried to change data; the read-only session refused it (error ${number}).`,
    });
  if (known(SCHEMA))
    return fail({
      code: 'INTERNAL',
      retryable: false,
      message: `The table behind ${resource} no longer matches its resource version (error ${number}); discover it again.`,
    });
  return fail({
    code: 'INTERNAL',
    retryable: false,
    message: `MySQL failed the statement for ${resource}${number === undefined ? '' : ` (error ${number})`}.`,
  });
}
