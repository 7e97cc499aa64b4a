import { NETWORK_ERROR_CODES } from '@tollgate/connector-sql';
import type { SqlFailure } from '@tollgate/connector-sql';

/**
 * Classifies a `pg` failure by SQLSTATE (or socket error code). The message is written here,
 * never copied from the server: server messages quote values (`invalid input syntax for type
 * integer: "…"`, duplicate key details). The cause names only the code.
 */
export function classifyPgFailure(err: unknown, resource: string, cancelled: boolean): SqlFailure {
  const code =
    typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : '';
  const message = err instanceof Error ? err.message : '';
  const cause = `postgres ${code || 'client error'}`;
  const fail = (failure: Omit<SqlFailure, 'cause'>): SqlFailure => ({ ...failure, cause });
  if (cancelled)
    return fail({
      code: 'UPSTREAM_TIMEOUT',
      retryable: false,
      message: `The call was cancelled before PostgreSQL answered for ${resource}.`,
    });
  if (code === '57014' || /timeout/i.test(message)) {
    return fail({
      code: 'UPSTREAM_TIMEOUT',
      retryable: true,
      message: `PostgreSQL did not answer within the resource timeout for ${resource}.`,
    });
  }
  if (
    NETWORK_ERROR_CODES.has(code) ||
    code.startsWith('08') ||
    ['57P01', '57P02', '57P03', '53300', '53400'].includes(code) ||
    /Connection terminated|connect/i.test(message)
  ) {
    return fail({
      code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
      message: `PostgreSQL is unreachable for ${resource}.`,
    });
  }
  if (code === '40001' || code === '40P01' || code === '55P03') {
    return fail({
      code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
      message: `PostgreSQL aborted the statement for ${resource} because of a conflicting transaction; try again.`,
    });
  }
  if (code === '23505')
    return fail({
      code: 'ALREADY_EXISTS',
      retryable: false,
      message: `A row with this key already exists in ${resource} (or is outside what you may change).`,
    });
  if (code.startsWith('23'))
    return fail({
      code: 'UPSTREAM_REJECTED',
      retryable: false,
      message: `PostgreSQL refused the write to ${resource}: a constraint (not null, check or foreign key) does not hold (SQLSTATE ${code}).`,
    });
  if (code.startsWith('22'))
    return fail({
      code: 'UPSTREAM_REJECTED',
      retryable: false,
      message: `PostgreSQL refused a value for ${resource} (SQLSTATE ${code}: out of range or malformed).`,
    });
  if (code.startsWith('28'))
    return fail({
      code: 'CREDENTIAL_UNAVAILABLE',
      retryable: false,
      message: `PostgreSQL refused the login of ${resource}; check its credential.`,
    });
  if (code === '42501')
    return fail({
      code: 'UPSTREAM_REJECTED',
      retryable: false,
      message: `The login of ${resource} may not do this on the table (SQLSTATE 42501).`,
    });
  if (code.startsWith('42'))
    return fail({
      code: 'INTERNAL',
      retryable: false,
      message: `The table behind ${resource} no longer matches its resource version (SQLSTATE ${code}); discover it again.`,
    });
  return fail({
    code: 'INTERNAL',
    retryable: false,
    message: `PostgreSQL failed the statement for ${resource}${code === '' ? '' : ` (SQLSTATE ${code})`}.`,
  });
}
