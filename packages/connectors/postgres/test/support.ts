import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import pg from 'pg';

const root = fileURLToPath(new URL('../../../..', import.meta.url));

/** The admin DSN of the local PostgreSQL: `TOLLGATE_PG_URL`, else deploy/local's admin.env. */
export function adminUrl(): string {
  const fromEnv = process.env['TOLLGATE_PG_URL'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const state = process.env['TOLLGATE_STATE_DIR'] ?? join(root, '.tollgate/local');
  const text = readFileSync(join(state, 'postgres/admin.env'), 'utf8');
  const line = text.split('\n').find((l) => l.startsWith('TOLLGATE_PG_URL='));
  if (line === undefined) throw new Error('no TOLLGATE_PG_URL in postgres/admin.env');
  return line.slice('TOLLGATE_PG_URL='.length).trim();
}

export const admin = (): pg.Pool => new pg.Pool({ connectionString: adminUrl(), max: 2 });

export { testCredentials, unique } from '../../sql/test/harness.js';

/** Host, port and database of the admin DSN. */
export function serverOf(): { host: string; port: number; database: string } {
  const url = new URL(adminUrl());
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    database: url.pathname.slice(1) || 'postgres',
  };
}

/**
 * Creates a login role that may only read (and, when `write`, change) the given schema, with its
 * password in env var `envName`. Statements of this role are counted by pg_stat_statements
 * under its own user id, and logged (`log_statement = all`) when `logged`.
 */
export async function createLogin(
  db: pg.Pool,
  role: string,
  schema: string,
  envName: string,
  options: { write?: boolean; logged?: boolean } = {},
): Promise<void> {
  const password = randomBytes(12).toString('hex');
  await db.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
  await db.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
  await db.query(
    `GRANT SELECT ${options.write === true ? ', INSERT, UPDATE' : ''} ON ALL TABLES IN SCHEMA ${schema} TO ${role}`,
  );
  if (options.logged === true) await db.query(`ALTER ROLE ${role} SET log_statement = 'all'`);
  process.env[envName] = JSON.stringify({ username: role, password });
}

/** Drops what a test created. */
export async function dropAll(db: pg.Pool, schema: string, roles: string[]): Promise<void> {
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  for (const role of roles) await db.query(`DROP ROLE IF EXISTS ${role}`);
}

/** Statements pg_stat_statements recorded for a role: normalized text and calls. */
export async function statementsOf(
  db: pg.Pool,
  role: string,
): Promise<Array<{ query: string; calls: number }>> {
  const result = await db.query(
    `SELECT query, calls::int AS calls FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname = $1`,
    [role],
  );
  return result.rows as Array<{ query: string; calls: number }>;
}

/**
 * The server's log file: `TOLLGATE_PG_LOG`, else the file the server's stderr goes to (read
 * from /proc through a backend's file descriptor 2; same machine only).
 */
export async function serverLogPath(db: pg.Pool): Promise<string> {
  const fromEnv = process.env['TOLLGATE_PG_LOG'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const pid = (await db.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  return readlinkSync(`/proc/${pid}/fd/2`);
}

/** Lines of the server log written by `role`, from byte `from` on. */
export function logLinesOf(path: string, from: number, role: string): string[] {
  const text = readFileSync(path).subarray(from).toString('utf8');
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    if (line.includes(` ${role}@`)) out.push(line);
    // DETAIL lines follow their statement and carry the same prefix.
  }
  return out;
}
