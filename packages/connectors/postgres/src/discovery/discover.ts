import pg from 'pg';
import type { CredentialResolver, DiscoverOptions } from '@tollgate/core';
import { withDiscoverySession } from '@tollgate/connector-sql';
import type { CatalogTable, SqlConnection } from '@tollgate/connector-sql';

import { PG_RUNNER } from '../execute/execute.js';
import { poolConfig } from '../execute/pools.js';
import { readCatalog } from './catalog.js';

/**
 * Reads the live table behind `target` (`schema` defaults to `public`) through a short-lived
 * read-only session, resolving the credential just in time.
 */
export async function discoverPostgres(
  connection: SqlConnection,
  target: { schema?: string; table: string },
  credentials: CredentialResolver,
  options: DiscoverOptions = {},
): Promise<CatalogTable> {
  const resource = `${target.schema ?? 'public'}.${target.table}`;
  return withDiscoverySession(
    PG_RUNNER,
    connection,
    credentials,
    resource,
    options,
    async (login, timeoutMs) => {
      const client = new pg.Client({ ...poolConfig(login, { ...connection, timeoutMs }, true) });
      client.on('error', () => undefined);
      await client.connect();
      try {
        return await readCatalog(client, target.schema ?? 'public', target.table);
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  );
}
