import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import mysql from 'mysql2/promise';
import type { Pool, RowDataPacket } from 'mysql2/promise';

export { testCredentials, unique } from '../../sql/test/harness.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));

/** The admin DSN of the local MariaDB: `TOLLGATE_MYSQL_URL`, else deploy/local's admin.env. */
export function adminUrl(): string {
  const fromEnv = process.env['TOLLGATE_MYSQL_URL'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const state = process.env['TOLLGATE_STATE_DIR'] ?? join(root, '.tollgate/local');
  const text = readFileSync(join(state, 'mariadb/admin.env'), 'utf8');
  const line = text.split('\n').find((l) => l.startsWith('TOLLGATE_MYSQL_URL='));
  if (line === undefined) throw new Error('no TOLLGATE_MYSQL_URL in mariadb/admin.env');
  return line.slice('TOLLGATE_MYSQL_URL='.length).trim();
}

/** The admin on one connection in UTC (so fixture date-times mean what they say). */
export function admin(): Pool {
  const pool = mysql.createPool({ uri: adminUrl(), connectionLimit: 1, timezone: 'Z' });
  pool.on('connection', (conn) => {
    conn.query("SET SESSION time_zone = '+00:00'");
  });
  return pool;
}

/** Rows of a query run as the admin. */
export async function rowsOf<T>(db: Pool, sql: string, values: unknown[] = []): Promise<T[]> {
  const [rows] = await db.query<RowDataPacket[]>(sql, values);
  return rows as T[];
}

/** Host, port and database of the admin DSN (the database a resource's login connects to). */
export function serverOf(): { host: string; port: number; database: string } {
  const url = new URL(adminUrl());
  return {
    host: url.hostname,
    port: Number(url.port || 3306),
    database: url.pathname.slice(1) || 'tollgate',
  };
}

/**
 * Creates a login that may only read (and, when `write`, change) `database`, with its
 * password in env var `envName` (`{username, password}`). Its statements are counted by
 * performance_schema under its own user name.
 */
export async function createLogin(
  db: Pool,
  user: string,
  database: string,
  envName: string,
  options: { write?: boolean } = {},
): Promise<void> {
  const password = randomBytes(12).toString('hex');
  await db.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
  const grants = options.write === true ? 'SELECT, INSERT, UPDATE' : 'SELECT';
  await db.query(`GRANT ${grants} ON \`${database}\`.* TO '${user}'@'%'`);
  // The resource's connection names the server's database; the login may use it too.
  await db.query(`GRANT SELECT ON \`${serverOf().database}\`.* TO '${user}'@'%'`);
  process.env[envName] = JSON.stringify({ username: user, password });
}

/** Drops what a test created. */
export async function dropAll(db: Pool, database: string, users: string[]): Promise<void> {
  await db.query(`DROP DATABASE IF EXISTS \`${database}\``);
  for (const user of users) await db.query(`DROP USER IF EXISTS '${user}'@'%'`);
}

/** Every statement the server ran for `user` (performance_schema's counters, all statement kinds). */
export async function statementsRun(db: Pool, user: string): Promise<number> {
  const [row] = await rowsOf<{ n: string | null }>(
    db,
    `SELECT SUM(COUNT_STAR) AS n FROM performance_schema.events_statements_summary_by_user_by_event_name WHERE USER = ?`,
    [user],
  );
  return Number(row?.n ?? 0);
}

/**
 * The statement texts the server saw from `user`'s open sessions: every statement prepared
 * (performance_schema.prepared_statements_instances, with `?` where values go) and every
 * statement run (events_statements_history_long).
 */
export async function statementTextsOf(
  db: Pool,
  user: string,
): Promise<{ prepared: string[]; run: string[] }> {
  const prepared = await rowsOf<{ text: string }>(
    db,
    `SELECT p.SQL_TEXT AS text FROM performance_schema.prepared_statements_instances p
       JOIN performance_schema.threads t ON t.THREAD_ID = p.OWNER_THREAD_ID
      WHERE t.PROCESSLIST_USER = ?`,
    [user],
  );
  const run = await rowsOf<{ text: string | null }>(
    db,
    `SELECT h.SQL_TEXT AS text FROM performance_schema.events_statements_history_long h
       JOIN performance_schema.threads t ON t.THREAD_ID = h.THREAD_ID
      WHERE t.PROCESSLIST_USER = ?`,
    [user],
  );
  return {
    prepared: prepared.map((r) => String(r.text)),
    run: run.flatMap((r) => (r.text === null ? [] : [String(r.text)])),
  };
}
