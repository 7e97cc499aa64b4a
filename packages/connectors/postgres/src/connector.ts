import { lazySqlDriver, sqlConnector } from '@tollgate/connector-sql';
import type { SqlRequest } from '@tollgate/connector-sql';
import type { Connector } from '@tollgate/core';

import { postgresDialect } from './dialect.js';
import { postgresKind } from './kind/kind.js';

/** The postgres kind with its connector: one entry in the list of kinds. */
export const postgresConnector: Connector<SqlRequest> = sqlConnector(
  postgresKind,
  // The driver (`pg`) loads with the first discovery or call, so reading the kind stays cheap.
  lazySqlDriver(postgresDialect, () => import('./runtime.js')),
);
