import {
  CONFORMANCE_CANARY,
  runConnectorConformance,
} from '../../../core/test/connector-conformance.js';
import { mysqlConnector } from '../src/index.js';
import { closePools } from '../src/execute/pools.js';
import { admin, createLogin, dropAll, serverOf, testCredentials, unique } from './support.js';

const db = admin();
const database = unique('conformance');
const user = unique('tg_conf');
process.env['TG_CONFORMANCE_CANARY'] = JSON.stringify({
  username: 'conformance',
  password: CONFORMANCE_CANARY,
});

/** The mysql field type and column type each fixture value class is declared with. */
const TYPES: Record<string, { type: string; column: string }> = {
  exact: { type: 'string', column: 'varchar(64)' },
  number: { type: 'number', column: 'double' },
  datetime: { type: 'datetime', column: 'timestamp NULL' },
};

/** `2024-05-01T10:00:00Z` as the server reads it in a UTC session. */
const serverValue = (value: unknown): unknown =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T.*Z$/.test(value)
    ? value.replace('T', ' ').replace('Z', '')
    : value;

runConnectorConformance(mysqlConnector, {
  field(name, { valueClass, ...capabilities }) {
    const mapped = TYPES[valueClass];
    if (mapped === undefined) throw new Error(`no mysql type for ${name} (${valueClass})`);
    return {
      type: mapped.type,
      ...capabilities,
      ...(name === 'id' ? { column: { primaryKey: 1 } } : {}),
    };
  },
  async provision(fixture, fields) {
    const columns = Object.entries(fields).map(([name, spec]) => {
      const mapped = Object.values(TYPES).find((t) => t.type === spec.type);
      return `\`${name}\` ${mapped?.column ?? 'text'}${name === 'id' ? ' PRIMARY KEY' : ''}`;
    });
    await db.query(`CREATE DATABASE \`${database}\``);
    await db.query(`CREATE TABLE \`${database}\`.orders (${columns.join(', ')})`);
    const names = Object.keys(fields);
    for (const row of fixture.rows) {
      await db.execute(
        `INSERT INTO \`${database}\`.orders (${names.map((n) => `\`${n}\``).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
        names.map((n) => serverValue(row[n]) as string),
      );
    }
    await createLogin(db, user, database, 'TG_CONFORMANCE_MYSQL', { write: true });
    return {
      connection: {
        ...serverOf(),
        credentialRef: 'env://TG_CONFORMANCE_MYSQL',
        timeoutMs: 5000,
      },
      target: { schema: database, table: 'orders' },
    };
  },
  async cleanup() {
    await closePools();
    await dropAll(db, database, [user]);
    await db.end();
  },
  unreachable: (connection) => ({ ...connection, port: 1 }),
  credentials: testCredentials,
  canaryRef: 'env://TG_CONFORMANCE_CANARY',
});
