import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mysql from 'mysql2/promise';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { mysqlAdmin, uniqueName } from '../support/infra.js';

const admin = mysqlAdmin();
const options = {
  host: admin.host,
  port: admin.port,
  user: admin.user,
  password: admin.password,
  database: admin.database,
};
const table = uniqueName('tg_smoke');
const hostile = `x'; DROP TABLE ${table}; -- `;
let conn: Connection;

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const [r] = await conn.query<RowDataPacket[]>(sql, params);
  return r as T[];
}

beforeAll(async () => {
  conn = await mysql.createConnection(options);
  await conn.query(`CREATE TABLE ${table} (id INT PRIMARY KEY, note TEXT NOT NULL)`);
});
afterAll(async () => {
  await conn?.query(`DROP TABLE IF EXISTS ${table}`);
  await conn?.end();
});

describe('smoke - MariaDB', () => {
  it('mysql - admin logs in over TCP with the password from admin.env; MariaDB 10.11', async () => {
    const [r] = await rows<{ one: number; v: string }>('SELECT 1 AS one, VERSION() AS v');
    expect(r?.one).toBe(1);
    expect(r?.v).toMatch(/^10\.11\.\d+-MariaDB/);
  });

  it('mysql - a wrong password is refused', async () => {
    await expect(
      mysql.createConnection({ ...options, password: `${admin.password}x` }),
    ).rejects.toThrow(/Access denied/);
  });

  it('mysql - performance_schema shows a prepared statement with ? where the value was', async () => {
    await conn.execute(`INSERT INTO ${table} (id, note) VALUES (?, ?)`, [1, hostile]);
    const [back] = await rows<{ note: string }>(`SELECT note FROM ${table} WHERE id = 1`);
    expect(back?.note).toBe(hostile);
    // MariaDB records binary-protocol executions as statement/com/Execute without text; the
    // statement itself, as prepared, is in prepared_statements_instances.
    const prepared = await rows<{ sql_text: string; n: number }>(
      `SELECT p.SQL_TEXT AS sql_text, p.COUNT_EXECUTE AS n
         FROM performance_schema.prepared_statements_instances p
         JOIN performance_schema.threads t ON t.THREAD_ID = p.OWNER_THREAD_ID
        WHERE t.PROCESSLIST_ID = CONNECTION_ID() AND p.SQL_TEXT LIKE ?`,
      [`INSERT INTO ${table}%`],
    );
    expect(prepared.map((p) => [p.sql_text, Number(p.n)])).toEqual([
      [`INSERT INTO ${table} (id, note) VALUES (?, ?)`, 1],
    ]);
    const [digest] = await rows<{ n: number }>(
      `SELECT COUNT(*) AS n FROM performance_schema.events_statements_summary_by_digest
        WHERE DIGEST_TEXT LIKE ?`,
      [`%DROP TABLE%${table}%`],
    );
    expect(Number(digest?.n)).toBe(0);
    const history = await rows<{ sql_text: string }>(
      `SELECT h.SQL_TEXT AS sql_text
         FROM performance_schema.events_statements_history_long h
         JOIN performance_schema.threads t ON t.THREAD_ID = h.THREAD_ID
        WHERE t.PROCESSLIST_ID = CONNECTION_ID() AND h.SQL_TEXT LIKE ?`,
      [`SELECT note FROM ${table}%`],
    );
    expect(history.map((h) => h.sql_text)).toEqual([`SELECT note FROM ${table} WHERE id = 1`]);
  });

  it('mysql - the general log switches on and records statements in mysql.general_log', async () => {
    const [before] = await rows<{ on: number }>('SELECT @@GLOBAL.general_log AS `on`');
    const marker = uniqueName('tg_logged');
    await conn.query('SET GLOBAL general_log = 1');
    try {
      await conn.query(`SELECT '${marker}' AS marker`);
      const logged = await rows<{ argument: string }>(
        `SELECT CONVERT(argument USING utf8mb4) AS argument FROM mysql.general_log
          WHERE thread_id = CONNECTION_ID() AND argument LIKE ?`,
        [`%${marker}%`],
      );
      expect(logged.map((l) => l.argument)).toContain(`SELECT '${marker}' AS marker`);
    } finally {
      // The server is shared: leave the switch as it was found.
      await conn.query(`SET GLOBAL general_log = ${before?.on ? 1 : 0}`);
    }
  });
});
