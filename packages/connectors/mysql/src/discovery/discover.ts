import mysql from 'mysql2/promise';
import type { CredentialResolver, DiscoverOptions } from '@tollgate/core';
import { withDiscoverySession } from '@tollgate/connector-sql';
import type { CatalogTable, SqlConnection } from '@tollgate/connector-sql';

import { MYSQL_RUNNER } from '../execute/execute.js';
import { poolOptions, sessionStatements, isMariaDb } from '../execute/pools.js';
import { readCatalog } from './catalog.js';

/**
 * Reads the live table behind `target` (`schema` defaults to the connection's database)
 * through a short-lived read-only session, resolving the credential just in time.
 */
export async function discoverMysql(
  connection: SqlConnection,
  target: { schema?: string; table: string },
  credentials: CredentialResolver,
  options: DiscoverOptions = {},
): Promise<CatalogTable> {
  const schema = target.schema ?? connection.database;
  const resource = `${schema}.${target.table}`;
  return withDiscoverySession(
    MYSQL_RUNNER,
    connection,
    credentials,
    resource,
    options,
    async (login, timeoutMs) => {
      const {
        connectionLimit: _limit,
        idleTimeout: _idle,
        ...single
      } = poolOptions(login, {
        ...connection,
        timeoutMs,
      });
      const client = await mysql.createConnection(single);
      client.on('error', () => undefined);
      try {
        for (const statement of sessionStatements(
          isMariaDb((client as unknown as { connection: never }).connection),
          timeoutMs,
          true,
        ))
          await client.query(statement);
        return await readCatalog(client, schema, target.table);
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  );
}
