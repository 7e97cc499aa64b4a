import {
  CONFORMANCE_CANARY,
  runConnectorConformance,
} from '../../../core/test/connector-conformance.js';
import { elasticsearchConnector } from '../src/index.js';
import { adminClient, dropIndices, ES_URL, testCredentials, uniquePrefix } from './support.js';

const prefix = uniquePrefix();
const admin = adminClient();
process.env['TG_CONFORMANCE_CANARY'] = JSON.stringify({
  username: 'conformance',
  password: CONFORMANCE_CANARY,
});

/** The Elasticsearch type the fixture's value classes are declared with. */
const TYPES: Record<string, string> = { exact: 'keyword', number: 'double', datetime: 'date' };

runConnectorConformance(elasticsearchConnector, {
  field(name, { valueClass, ...capabilities }) {
    const type = TYPES[valueClass];
    if (type === undefined) throw new Error(`no Elasticsearch type for ${name} (${valueClass})`);
    return { type, ...capabilities };
  },
  async provision(fixture, fields) {
    const index = `${prefix}_conformance`;
    const properties = Object.fromEntries(
      Object.entries(fields).map(([name, spec]) => [name, { type: spec.type as 'keyword' }]),
    );
    await admin.indices.create({ index, mappings: { dynamic: 'strict', properties } });
    await admin.bulk({
      refresh: true,
      operations: fixture.rows.flatMap((row) => [
        { index: { _index: index, _id: String(row['id']) } },
        row,
      ]),
    });
    return { connection: { endpoint: ES_URL, timeoutMs: 5000 }, target: { index } };
  },
  async cleanup() {
    await dropIndices(admin, prefix);
    await admin.close();
  },
  unreachable: (connection) => ({ ...connection, endpoint: 'http://127.0.0.1:1' }),
  credentials: testCredentials,
  canaryRef: 'env://TG_CONFORMANCE_CANARY',
});
