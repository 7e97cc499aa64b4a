import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { eventually, postgresAdmin, uniqueName } from '../support/infra.js';

const admin = postgresAdmin();
const client = new pg.Client({ ...admin, application_name: 'tg-smoke' });
const table = uniqueName('tg_smoke');
// A value an attacker would try: if it were spliced into the SQL, the table would be gone.
const hostile = `x'; DROP TABLE ${table}; --`;

beforeAll(async () => {
  await client.connect();
  await client.query(`CREATE TABLE ${table} (id int PRIMARY KEY, note text NOT NULL)`);
});
afterAll(async () => {
  await client.query(`DROP TABLE IF EXISTS ${table}`);
  await client.end();
});

describe('smoke - PostgreSQL', () => {
  it('pg - admin logs in over TCP with the password from admin.env; PostgreSQL 15', async () => {
    const res = await client.query<{ one: number; v: string; su: boolean }>(
      `SELECT 1 AS one, current_setting('server_version_num') AS v,
              (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS su`,
    );
    expect(res.rows[0]?.one).toBe(1);
    expect(Number(res.rows[0]?.v)).toBeGreaterThanOrEqual(150000);
    expect(Number(res.rows[0]?.v)).toBeLessThan(160000);
    expect(res.rows[0]?.su).toBe(true);
  });

  it('pg - a wrong password is refused', async () => {
    const wrong = new pg.Client({ ...admin, password: `${admin.password}x` });
    await expect(wrong.connect()).rejects.toThrow(/password authentication failed/);
    await wrong.end().catch(() => undefined);
  });

  it('pg - pg_stat_statements records a bound value as a parameter, never as SQL text', async () => {
    await client.query(`INSERT INTO ${table} (id, note) VALUES ($1, $2)`, [1, hostile]);
    const back = await client.query<{ note: string }>(
      `SELECT note FROM ${table} WHERE id = $1`,
      [1],
    );
    expect(back.rows).toEqual([{ note: hostile }]);
    const stats = await client.query<{ query: string; calls: string }>(
      `SELECT query, calls FROM pg_stat_statements WHERE query LIKE $1`,
      [`INSERT INTO ${table}%`],
    );
    expect(stats.rows).toHaveLength(1);
    expect(stats.rows[0]?.query).toBe(`INSERT INTO ${table} (id, note) VALUES ($1, $2)`);
    expect(Number(stats.rows[0]?.calls)).toBe(1);
    const leaked = await client.query(`SELECT 1 FROM pg_stat_statements WHERE query LIKE $1`, [
      `%DROP TABLE ${table}%`,
    ]);
    expect(leaked.rowCount).toBe(0);
  });

  it('pg - statement logging switches on per session and lands in server.log', async () => {
    const marker = uniqueName('tg_logged');
    await client.query(`SET log_statement = 'all'`);
    await client.query(`SELECT '${marker}' AS marker`);
    await client.query(`SET log_statement = 'none'`);
    const line = await eventually(
      () =>
        readFileSync(admin.logFile, 'utf8')
          .split('\n')
          .find((l) => l.includes(marker)),
      5_000,
      100,
    );
    expect(line).toMatch(/tollgate_admin@tollgate app=tg-smoke LOG: {2}statement: SELECT/);
  });
});
