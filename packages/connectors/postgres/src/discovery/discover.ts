import pg from 'pg';
import type { CredentialResolver, DiscoverOptions } from '@tollgate/core';
import { resolveSqlCredential, sqlLogin, withAttempts } from '@tollgate/connector-sql';
import type { CatalogTable, SqlConnection } from '@tollgate/connector-sql';

import { classifyPgFailure } from '../execute/failure.js';
import { DEFAULT_PORT, DSN_SCHEMES } from '../execute/execute.js';
import { DEFAULT_TIMEOUT_MS, poolConfig } from '../execute/pools.js';
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
  const credential = await resolveSqlCredential(connection, credentials, resource);
  const login = sqlLogin(connection, credential, DSN_SCHEMES, DEFAULT_PORT);
  const timeoutMs = options.timeoutMs ?? connection.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { value } = await withAttempts(
    {
      resource,
      idempotent: true,
      timeoutMs,
      maxAttempts: 2,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      classify: (err, cancelled) => classifyPgFailure(err, resource, cancelled),
    },
    async () => {
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
  return value;
}
