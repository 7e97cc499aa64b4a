import {
  CONFORMANCE_CANARY,
  runConnectorConformance,
} from '../../../core/test/connector-conformance.js';
import { postgresConnector } from '../src/index.js';
import { admin, createLogin, dropAll, serverOf, testCredentials, unique } from './support.js';

const db = admin();
const schema = unique('conformance');
const role = unique('tg_conformance');
process.env['TG_CONFORMANCE_CANARY'] = JSON.stringify({
  username: 'conformance',
  password: CONFORMANCE_CANARY,
});

/** The postgres field type and column type each fixture value class is declared with. */
const TYPES: Record<string, { type: string; column: string }> = {
  exact: { type: 'string', column: 'text' },
  number: { type: 'number', column: 'double precision' },
  datetime: { type: 'datetime', column: 'timestamptz' },
};

runConnectorConformance(postgresConnector, {
  field(name, { valueClass, ...capabilities }) {
    const mapped = TYPES[valueClass];
    if (mapped === undefined) throw new Error(`no postgres type for ${name} (${valueClass})`);
    // The table's key is `id`, as provision creates it.
    return {
      type: mapped.type,
      ...capabilities,
      ...(name === 'id' ? { column: { primaryKey: 1 } } : {}),
    };
  },
  async provision(fixture, fields) {
    const columns = Object.entries(fields).map(([name, spec]) => {
      const mapped = Object.values(TYPES).find((t) => t.type === spec.type);
      return `"${name}" ${mapped?.column ?? 'text'}${name === 'id' ? ' PRIMARY KEY' : ''}`;
    });
    await db.query(`CREATE SCHEMA ${schema}`);
    await db.query(`CREATE TABLE ${schema}.orders (${columns.join(', ')})`);
    const names = Object.keys(fields);
    for (const row of fixture.rows) {
      await db.query(
        `INSERT INTO ${schema}.orders (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
        names.map((n) => row[n]),
      );
    }
    await createLogin(db, role, schema, 'TG_CONFORMANCE_PG', { write: true });
    return {
      connection: { ...serverOf(), credentialRef: 'env://TG_CONFORMANCE_PG', timeoutMs: 5000 },
      target: { schema, table: 'orders' },
    };
  },
  async cleanup() {
    await dropAll(db, schema, [role]);
    await db.end();
  },
  unreachable: (connection) => ({ ...connection, port: 1 }),
  credentials: testCredentials,
  canaryRef: 'env://TG_CONFORMANCE_CANARY',
});
