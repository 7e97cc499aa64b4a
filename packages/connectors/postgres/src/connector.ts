import { sqlConnector } from '@tollgate/connector-sql';
import type { SqlDriver, SqlRequest } from '@tollgate/connector-sql';
import type { Connector } from '@tollgate/core';

import { postgresDialect } from './dialect.js';
import { postgresKind } from './kind/kind.js';

// The driver (`pg`) loads with the first discovery or call, so reading the kind stays cheap.
const runtime = () => import('./runtime.js');

const driver: SqlDriver = {
  dialect: postgresDialect,
  discover: async (connection, target, credentials, options) =>
    (await runtime()).discoverPostgres(connection, target, credentials, options),
  execute: async (request, options) => (await runtime()).executePg(request, options),
  close: async () => {
    const { closePools, openPools } = await runtime();
    if (openPools() > 0) await closePools();
  },
};

/** The postgres kind with its connector: one entry in the list of kinds. */
export const postgresConnector: Connector<SqlRequest> = sqlConnector(postgresKind, driver);
