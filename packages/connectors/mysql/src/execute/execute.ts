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
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';

import { classifyMysqlFailure } from './failure.js';
import { DEFAULT_TIMEOUT_MS, isMariaDb, poolFor, statementTimeLimit } from './pools.js';

export const DSN_SCHEMES = ['mysql', 'mariadb'];
export const DEFAULT_PORT = 3306;

/**
 * Runs a compiled request as prepared statements (values only ever travel as parameters). Reads
 * go to a pool whose sessions are `READ ONLY` with the resource's statement time limit, one
 * round trip each; when the caller's deadline leaves less than that, the session's limit is
 * lowered for the one statement. Writes run in one transaction on the write pool, exactly once.
 * Reads are retried on retryable failures (deadlock, lock wait, connection lost, timeout).
 */
export function executeMysql(
  request: SqlRequest,
  options: SqlExecuteOptions,
): Promise<SqlExecution> {
  return runSqlRequest(MYSQL_RUNNER, request, options);
}

/** MySQL's and MariaDB's part of a SQL request run (and of a discovery session). */
export const MYSQL_RUNNER: SqlRunner<Pool> = {
  dsnSchemes: DSN_SCHEMES,
  defaultPort: DEFAULT_PORT,
  defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
  pool: poolFor,
  classify: classifyMysqlFailure,
  read,
  write,
};

/** The statement with a client-side timeout: a backstop a little after the server's own. */
function prepared(statement: SqlStatement, timeoutMs: number) {
  return { sql: statement.text, values: statement.values, timeout: timeoutMs + 250 };
}

async function read(
  pool: Pool,
  request: SqlReadRequest,
  attemptMs: number,
  sessionMs: number,
): Promise<SqlResult> {
  if (attemptMs >= sessionMs) {
    const [rows] = await pool.execute<RowDataPacket[]>(prepared(request.statement, attemptMs));
    return { rows: rows as Array<Record<string, unknown>> };
  }
  const connection = await pool.getConnection();
  const mariadb = isMariaDb(connection.connection as never);
  try {
    await connection.query(`SET SESSION ${statementTimeLimit(mariadb, attemptMs)}`);
    const [rows] = await connection.execute<RowDataPacket[]>(
      prepared(request.statement, attemptMs),
    );
    await connection.query(`SET SESSION ${statementTimeLimit(mariadb, sessionMs)}`);
    connection.release();
    return { rows: rows as Array<Record<string, unknown>> };
  } catch (err) {
    // The session's limit may still be the short one: never hand the connection out again.
    connection.destroy();
    throw err;
  }
}

async function write(pool: Pool, request: SqlWriteRequest, attemptMs: number): Promise<SqlResult> {
  const connection: PoolConnection = await pool.getConnection();
  try {
    await connection.query('START TRANSACTION');
    const outcome = await writeRow(request, async (statement, insert) => {
      // FOUND_ROWS (mysql2's default): rows matched, so an update to the same values counts.
      const [done] = await connection.execute<ResultSetHeader>(prepared(statement, attemptMs));
      return insert && request.insertId !== undefined && done.insertId !== 0
        ? { affected: done.affectedRows, generatedKey: { [request.insertId]: done.insertId } }
        : { affected: done.affectedRows };
    });
    await connection.query('COMMIT');
    connection.release();
    return outcome;
  } catch (err) {
    await connection.query('ROLLBACK').catch(() => undefined);
    connection.release();
    throw err;
  }
}
