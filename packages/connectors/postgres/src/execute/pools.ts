import pg from 'pg';
import type { CustomTypesConfig, PoolConfig } from 'pg';
import { PoolCache } from '@tollgate/connector-sql';
import type { SqlConnection, SqlLogin } from '@tollgate/connector-sql';

/** Default upstream timeout per statement when the connection sets none, ms. */
export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_CONNECTIONS = 10;

// Types whose text form is kept as is, so no precision is lost to a JS Date or number:
// date, time, timetz, timestamp, timestamptz, interval, and their arrays; and the geometric
// types, which the SQL core returns as text.
const RAW_SCALARS = new Set([
  1082, 1083, 1266, 1114, 1184, 1186, 600, 601, 602, 603, 604, 628, 718,
]);
const RAW_ARRAYS = new Set([1182, 1183, 1270, 1115, 1185, 1187]);
const TEXT_ARRAY = 1009 as Parameters<typeof pg.types.getTypeParser>[0];

/** Type parsers: the driver's own, except the types above. 64-bit integers and numerics stay text (the default). */
export const pgTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (RAW_SCALARS.has(oid)) return (value: string) => value;
    if (RAW_ARRAYS.has(oid)) return pg.types.getTypeParser(TEXT_ARRAY, 'text');
    return pg.types.getTypeParser(oid, (format ?? 'text') as 'text');
  }) as CustomTypesConfig['getTypeParser'],
};

const reads = new PoolCache<pg.Pool>();
const writes = new PoolCache<pg.Pool>();

/** The pool config for a login: sessions in UTC with ISO dates, reads read-only by default. */
export function poolConfig(
  login: SqlLogin,
  connection: SqlConnection,
  readonly: boolean,
): PoolConfig {
  const timeoutMs = connection.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const settings = [
    '-c TimeZone=UTC',
    '-c DateStyle=ISO',
    '-c IntervalStyle=iso_8601',
    '-c extra_float_digits=3',
  ];
  if (readonly) settings.push('-c default_transaction_read_only=on');
  return {
    ...login,
    max: connection.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    statement_timeout: timeoutMs,
    idle_in_transaction_session_timeout: timeoutMs * 2,
    connectionTimeoutMillis: timeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: 'tollgate',
    options: settings.join(' '),
    types: pgTypes,
    ...(connection.tls === undefined || connection.tls === 'disable'
      ? {}
      : { ssl: { rejectUnauthorized: connection.tls === 'verify' } }),
  };
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
): pg.Pool {
  const config = poolConfig(login, connection, mode === 'read');
  const cache = mode === 'read' ? reads : writes;
  return cache.get(resource, config, () => {
    const pool = new pg.Pool(config);
    // An idle client's connection dropping must not crash the process; the next call reconnects.
    pool.on('error', () => undefined);
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
