import mysql from 'mysql2/promise';
import type { Pool, PoolOptions } from 'mysql2/promise';
import { PoolCache } from '@tollgate/connector-sql';
import type { SqlConnection, SqlLogin } from '@tollgate/connector-sql';

/** Default upstream timeout per statement when the connection sets none, ms. */
export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_CONNECTIONS = 10;

/** A pooled connection as the session hook sees it (mysql2's callback connection). */
interface SessionConnection {
  query(sql: string, callback: (err: Error | null) => void): void;
  destroy(): void;
  _handshakePacket?: { serverVersion?: string };
  _isMariaDB?: boolean;
}

/** MariaDB bounds every statement with `max_statement_time` (s); MySQL bounds reads with `max_execution_time` (ms). */
export function statementTimeLimit(mariadb: boolean, timeoutMs: number): string {
  return mariadb
    ? `max_statement_time = ${(Math.max(1, Math.floor(timeoutMs)) / 1000).toFixed(3)}`
    : `max_execution_time = ${Math.max(1, Math.floor(timeoutMs))}`;
}

export function isMariaDb(connection: SessionConnection): boolean {
  return (
    connection._isMariaDB === true ||
    /mariadb/i.test(connection._handshakePacket?.serverVersion ?? '')
  );
}

/**
 * The statements that start every session: UTC, the statement time limit, a lock wait bounded
 * by the timeout, and for reads a read-only transaction mode, so the server itself refuses any
 * change on a read connection.
 */
export function sessionStatements(
  mariadb: boolean,
  timeoutMs: number,
  readonly: boolean,
): string[] {
  const lockWait = Math.max(1, Math.ceil(timeoutMs / 1000));
  return [
    `SET SESSION time_zone = '+00:00', SESSION ${statementTimeLimit(mariadb, timeoutMs)}, SESSION innodb_lock_wait_timeout = ${lockWait}`,
    ...(readonly ? ['SET SESSION TRANSACTION READ ONLY'] : []),
  ];
}

/**
 * The pool options for a login: date-times, 64-bit integers and decimals handed over as text
 * (nothing rounded by a JS Date or number), JSON as text (the SQL core parses it), one
 * statement per call (no multiple statements), utf8mb4.
 */
export function poolOptions(login: SqlLogin, connection: SqlConnection): PoolOptions {
  const timeoutMs = connection.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    ...login,
    connectionLimit: connection.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    connectTimeout: timeoutMs,
    idleTimeout: 30_000,
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    jsonStrings: true,
    multipleStatements: false,
    connectAttributes: { program_name: 'tollgate' },
    ...(connection.tls === undefined || connection.tls === 'disable'
      ? {}
      : { ssl: { rejectUnauthorized: connection.tls === 'verify' } }),
  };
}

const reads = new PoolCache<Pool>();
const writes = new PoolCache<Pool>();

/** Runs the session statements on a new connection; one that fails is destroyed, never used. */
function startSession(connection: SessionConnection, timeoutMs: number, readonly: boolean): void {
  for (const statement of sessionStatements(isMariaDb(connection), timeoutMs, readonly)) {
    connection.query(statement, (err) => {
      if (err !== null) connection.destroy();
    });
  }
}

/**
 * The pool of one resource version: read-only sessions for reads, ordinary ones for writes.
 * A changed connection or rotated credential closes the old pool (see `PoolCache`).
 */
export function poolFor(
  resource: string,
  login: SqlLogin,
  connection: SqlConnection,
  mode: 'read' | 'write',
): Pool {
  const options = poolOptions(login, connection);
  const timeoutMs = connection.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cache = mode === 'read' ? reads : writes;
  return cache.get(resource, options, () => {
    const pool = mysql.createPool(options);
    // The session statements are queued before the connection is handed out, so they run first.
    pool.on('connection', (conn) =>
      startSession(conn as unknown as SessionConnection, timeoutMs, mode === 'read'),
    );
    return pool;
  });
}

/** Closes every pool (shutdown, tests). */
export async function closePools(): Promise<void> {
  await Promise.all([reads.closeAll(), writes.closeAll()]);
}

/** Pools currently open (tests). */
export function openPools(): number {
  return reads.size + writes.size;
}
