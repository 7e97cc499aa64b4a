import { runSqlRequest, writeRow } from '@tollgate/connector-sql';
import type {
  SqlExecuteOptions,
  SqlExecution,
  SqlRunner,
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

/**
 * Runs a compiled request. Reads go to a pool whose sessions are read-only
 * (`default_transaction_read_only`) with the resource's `statement_timeout`, one round trip
 * each; when the caller's deadline leaves less than that, the read runs in an explicit
 * `BEGIN READ ONLY` with `SET LOCAL statement_timeout`. Writes run in one transaction on the
 * write pool, exactly once. Reads are retried on retryable failures.
 */
export function executePg(request: SqlRequest, options: SqlExecuteOptions): Promise<SqlExecution> {
  return runSqlRequest(PG_RUNNER, request, options);
}

/** PostgreSQL's part of a SQL request run (and of a discovery session). */
export const PG_RUNNER: SqlRunner<pg.Pool> = {
  dsnSchemes: DSN_SCHEMES,
  defaultPort: DEFAULT_PORT,
  defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
  pool: poolFor,
  classify: classifyPgFailure,
  read,
  write,
};

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
    const outcome = await writeRow(request, async (statement, insert) => {
      const done = await client.query(query(statement, attemptMs));
      const generatedKey = insert
        ? (done.rows[0] as Record<string, unknown> | undefined)
        : undefined;
      return generatedKey === undefined
        ? { affected: done.rowCount ?? 0 }
        : { affected: done.rowCount ?? 0, generatedKey };
    });
    await client.query('COMMIT');
    return outcome;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
