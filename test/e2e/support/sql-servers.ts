/**
 * The SQL servers an end-to-end scenario runs on, as a table: each makes a small orders table
 * of its own (a schema or database no other run uses) with rows of the scenario's tenant and
 * of another, and a login that may read and write only there. The login's statements are
 * counted by the server itself (pg_stat_statements; performance_schema), so a test can prove
 * what reached it.
 */
import * as pgSupport from '../../../packages/connectors/postgres/test/support.js';
import * as mysqlSupport from '../../../packages/connectors/mysql/test/support.js';

/** The scenario's table on one server. */
export interface SqlTable {
  connection: { host: string; port: number; database: string; credentialRef: string };
  target: { schema: string; table: string };
  /** Ids of the scenario tenant's rows, in key order (as the kinds return them: strings). */
  ownIds: string[];
  /** Id of a row of another tenant. */
  foreignId: string;
  /** The login's password (it must appear nowhere Tollgate writes). */
  secret: string;
  /** Every statement the server ran for the login. */
  statementsRun(): Promise<number>;
  /** Rows in the table, counted by the admin. */
  countRows(): Promise<number>;
  /** The tenant and status of one row, read by the admin (undefined when there is none). */
  rowOf(id: string): Promise<{ tenant: string; status: string } | undefined>;
  drop(): Promise<void>;
}

export interface SqlServer {
  type: string;
  createTable(tenant: string): Promise<SqlTable>;
}

const OWN_IDS = ['101', '102', '103'];
const FOREIGN_ID = '104';

function rowsFor(tenant: string): string {
  return [
    `(101, '${tenant}', 'a@example.com', 'paid', 10.50, 1.50)`,
    `(102, '${tenant}', 'b@example.com', 'pending', 20.00, 2.00)`,
    `(103, '${tenant}', 'c@example.com', 'shipped', 30.25, 3.25)`,
    `(104, 'other-tenant', 'd@example.com', 'paid', 40.00, 4.00)`,
  ].join(', ');
}

const COLUMNS = `id bigint PRIMARY KEY, tenant varchar(64) NOT NULL, customer_email varchar(64),
  status varchar(16) NOT NULL, total decimal(12,2) NOT NULL, internal_margin decimal(12,2)`;

function secretOf(envName: string): string {
  return (JSON.parse(process.env[envName] ?? '{}') as { password?: string }).password ?? '';
}

const postgres: SqlServer = {
  type: 'postgres',
  async createTable(tenant) {
    const db = pgSupport.admin();
    const schema = pgSupport.unique('e2e_shop');
    const role = pgSupport.unique('tg_e2e');
    const envName = `TG_E2E_${role.toUpperCase()}`;
    await db.query(`CREATE SCHEMA ${schema}`);
    await db.query(`CREATE TABLE ${schema}.orders (${COLUMNS})`);
    await db.query(`INSERT INTO ${schema}.orders VALUES ${rowsFor(tenant)}`);
    await pgSupport.createLogin(db, role, schema, envName, { write: true });
    const rows = async (sql: string, values: unknown[] = []) => (await db.query(sql, values)).rows;
    return {
      connection: { ...pgSupport.serverOf(), credentialRef: `env://${envName}` },
      target: { schema, table: 'orders' },
      ownIds: OWN_IDS,
      foreignId: FOREIGN_ID,
      secret: secretOf(envName),
      statementsRun: async () =>
        (await pgSupport.statementsOf(db, role)).reduce((sum, s) => sum + s.calls, 0),
      countRows: async () =>
        Number((await rows(`SELECT count(*) AS n FROM ${schema}.orders`))[0]?.n),
      rowOf: async (id) =>
        (await rows(`SELECT tenant, status FROM ${schema}.orders WHERE id = $1`, [id]))[0],
      async drop() {
        await db.query(`DROP OWNED BY ${role}`).catch(() => undefined);
        await pgSupport.dropAll(db, schema, [role]);
        await db.end();
      },
    };
  },
};

const mysql: SqlServer = {
  type: 'mysql',
  async createTable(tenant) {
    const db = mysqlSupport.admin();
    const database = mysqlSupport.unique('e2e_shop');
    const user = mysqlSupport.unique('tg_e2e');
    const envName = `TG_E2E_${user.toUpperCase()}`;
    await db.query(`CREATE DATABASE \`${database}\``);
    await db.query(`CREATE TABLE \`${database}\`.orders (${COLUMNS})`);
    await db.query(`INSERT INTO \`${database}\`.orders VALUES ${rowsFor(tenant)}`);
    await mysqlSupport.createLogin(db, user, database, envName, { write: true });
    return {
      connection: { ...mysqlSupport.serverOf(), credentialRef: `env://${envName}` },
      target: { schema: database, table: 'orders' },
      ownIds: OWN_IDS,
      foreignId: FOREIGN_ID,
      secret: secretOf(envName),
      statementsRun: () => mysqlSupport.statementsRun(db, user),
      countRows: async () =>
        Number(
          (
            await mysqlSupport.rowsOf<{ n: number }>(
              db,
              `SELECT COUNT(*) AS n FROM \`${database}\`.orders`,
            )
          )[0]?.n,
        ),
      rowOf: async (id) =>
        (
          await mysqlSupport.rowsOf<{ tenant: string; status: string }>(
            db,
            `SELECT tenant, status FROM \`${database}\`.orders WHERE id = ?`,
            [id],
          )
        )[0],
      async drop() {
        await mysqlSupport.dropAll(db, database, [user]);
        await db.end();
      },
    };
  },
};

export const SQL_SERVERS: readonly SqlServer[] = [postgres, mysql];
