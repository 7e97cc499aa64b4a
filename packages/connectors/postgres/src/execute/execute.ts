import { TollgateError } from '@tollgate/core';
import { resolveSqlCredential, sqlLogin, withAttempts } from '@tollgate/connector-sql';
import type {
  SqlExecuteOptions,
  SqlReadRequest,
  SqlRequest,
  SqlResult,
  SqlStatement,
  SqlWriteRequest,
} from '@tollgate/connector-sql';
import type pg from 'pg';

import { classifyPgFailure } from './failure.js';
import { DEFAULT_TIMEOUT_MS, poolFor } from './pools.js';

export const DSN_SCHEMES = ['postgres', 'postgresql'];
export const DEFAULT_PORT = 5432;

/** The result plus what the envelope reports. */
export interface PgExecution {
  result: SqlResult;
  attempts: number;
  latencyMs: number;
}

/**
 * Runs a compiled request. Reads go to a pool whose sessions are read-only
 * (`default_transaction_read_only`) with the resource's `statement_timeout`, one round trip
 * each; when the caller's deadline leaves less than that, the read runs in an explicit
 * `BEGIN READ ONLY` with `SET LOCAL statement_timeout`. Writes run in one transaction on the
 * write pool, exactly once. Reads are retried on retryable failures.
 */
export async function executePg(
  request: SqlRequest,
  options: SqlExecuteOptions,
): Promise<PgExecution> {
  const started = Date.now();
  const credential = await resolveSqlCredential(
    options.connection,
    options.credentials,
    options.resource,
  );
  const login = sqlLogin(options.connection, credential, DSN_SCHEMES, DEFAULT_PORT);
  const timeoutMs = options.connection.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pool = poolFor(options.poolKey, login, options.connection, request.mode);
  const { value, attempts } = await withAttempts(
    {
      resource: options.resource,
      idempotent: request.mode === 'read',
      timeoutMs,
      ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
      ...(options.backoffMs === undefined ? {} : { backoffMs: options.backoffMs }),
      classify: (err, cancelled) => classifyPgFailure(err, options.resource, cancelled),
    },
    (attemptMs) =>
      request.mode === 'read'
        ? read(pool, request, attemptMs, timeoutMs)
        : write(pool, request, attemptMs),
  );
  return { result: value, attempts, latencyMs: Date.now() - started };
}

function query(
  statement: SqlStatement,
  timeoutMs: number,
): pg.QueryConfig & { query_timeout: number } {
  // The client-side timeout is a backstop a little after the server's own.
  return { text: statement.text, values: statement.values, query_timeout: timeoutMs + 250 };
}

async function read(
  pool: pg.Pool,
  request: SqlReadRequest,
  attemptMs: number,
  sessionMs: number,
): Promise<SqlResult> {
  if (attemptMs >= sessionMs) {
    const result = await pool.query(query(request.statement, attemptMs));
    return { rows: result.rows as Array<Record<string, unknown>> };
  }
  const client = await pool.connect();
  try {
    await client.query(
      `BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${Math.floor(attemptMs)}`,
    );
    const result = await client.query(query(request.statement, attemptMs));
    await client.query('COMMIT');
    return { rows: result.rows as Array<Record<string, unknown>> };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

async function write(
  pool: pg.Pool,
  request: SqlWriteRequest,
  attemptMs: number,
): Promise<SqlResult> {
  const client = await pool.connect();
  try {
    await client.query(`BEGIN; SET LOCAL statement_timeout = ${Math.floor(attemptMs)}`);
    let outcome: SqlResult | undefined;
    if (request.update !== undefined) {
      const updated = await client.query(query(request.update, attemptMs));
      if ((updated.rowCount ?? 0) > 0)
        outcome = { rows: [], affected: updated.rowCount ?? 0, wrote: 'updated' };
    }
    if (outcome === undefined && request.insert !== undefined) {
      const inserted = await client.query(query(request.insert, attemptMs));
      const generatedKey = inserted.rows[0] as Record<string, unknown> | undefined;
      outcome = {
        rows: [],
        affected: inserted.rowCount ?? 0,
        wrote: 'created',
        ...(generatedKey === undefined ? {} : { generatedKey }),
      };
    }
    if (outcome === undefined) {
      await client.query('ROLLBACK');
      throw new TollgateError(
        'NOT_FOUND',
        'No row with that key (or it is outside what you may change).',
      );
    }
    await client.query('COMMIT');
    return outcome;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
