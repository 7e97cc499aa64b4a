import { callerLimits, withAttempts } from '@tollgate/core';
import type { CredentialResolver, DiscoverOptions } from '@tollgate/core';

import type { SqlExecuteOptions } from '../connector.js';
import type { SqlConnection } from '../kind/spec.js';
import type { SqlReadRequest, SqlRequest, SqlWriteRequest } from '../native.js';
import type { SqlResult } from '../shape/shape.js';
import { sqlAttempts } from './attempts.js';
import type { SqlFailure } from './attempts.js';
import { resolveSqlCredential, sqlLogin } from './login.js';
import type { SqlLogin } from './login.js';

/** The result plus what the envelope reports. */
export interface SqlExecution {
  result: SqlResult;
  attempts: number;
  latencyMs: number;
}

/** What a SQL kind's driver brings to the run: its DSN schemes, pools, failures and statements. */
export interface SqlRunner<Pool> {
  dsnSchemes: readonly string[];
  defaultPort: number;
  defaultTimeoutMs: number;
  pool(key: string, login: SqlLogin, connection: SqlConnection, mode: SqlRequest['mode']): Pool;
  classify(err: unknown, resource: string, cancelled: boolean): SqlFailure;
  /** One read attempt, within `attemptMs` (`sessionMs`: the pool sessions' own limit). */
  read(
    pool: Pool,
    request: SqlReadRequest,
    attemptMs: number,
    sessionMs: number,
  ): Promise<SqlResult>;
  /** The one attempt of a write, in a transaction of its own. */
  write(pool: Pool, request: SqlWriteRequest, attemptMs: number): Promise<SqlResult>;
}

/**
 * Runs a compiled request through a kind's driver: the credential resolved just in time, the
 * pool of this resource version and mode, reads retried on retryable failures within the
 * deadline, a write attempted exactly once.
 */
export async function runSqlRequest<Pool>(
  driver: SqlRunner<Pool>,
  request: SqlRequest,
  options: SqlExecuteOptions,
): Promise<SqlExecution> {
  const started = Date.now();
  const credential = await resolveSqlCredential(
    options.connection,
    options.credentials,
    options.resource,
  );
  const login = sqlLogin(
    options.connection,
    credential,
    [...driver.dsnSchemes],
    driver.defaultPort,
  );
  const timeoutMs = options.connection.timeoutMs ?? driver.defaultTimeoutMs;
  const pool = driver.pool(options.poolKey, login, options.connection, request.mode);
  const { value, attempts } = await withAttempts(
    {
      idempotent: request.mode === 'read',
      timeoutMs,
      ...callerLimits(options),
    },
    sqlAttempts(
      options.resource,
      (err, cancelled) => driver.classify(err, options.resource, cancelled),
      (attemptMs) =>
        request.mode === 'read'
          ? driver.read(pool, request, attemptMs, timeoutMs)
          : driver.write(pool, request, attemptMs),
    ),
  );
  return { result: value, attempts, latencyMs: Date.now() - started };
}

/**
 * Runs a discovery read (`read`, given the login and the time it may take) on a session of its
 * own: the credential resolved just in time, at most two attempts within the discovery timeout.
 */
export async function withDiscoverySession<T>(
  driver: Pick<SqlRunner<unknown>, 'dsnSchemes' | 'defaultPort' | 'defaultTimeoutMs' | 'classify'>,
  connection: SqlConnection,
  credentials: CredentialResolver,
  resource: string,
  options: DiscoverOptions,
  read: (login: SqlLogin, timeoutMs: number) => Promise<T>,
): Promise<T> {
  const credential = await resolveSqlCredential(connection, credentials, resource);
  const login = sqlLogin(connection, credential, [...driver.dsnSchemes], driver.defaultPort);
  const timeoutMs = options.timeoutMs ?? connection.timeoutMs ?? driver.defaultTimeoutMs;
  const { value } = await withAttempts(
    {
      idempotent: true,
      timeoutMs,
      maxAttempts: 2,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
    sqlAttempts(
      resource,
      (err, cancelled) => driver.classify(err, resource, cancelled),
      () => read(login, timeoutMs),
    ),
  );
  return value;
}
