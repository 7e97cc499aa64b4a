import { lazySqlDriver, sqlConnector } from '@tollgate/connector-sql';
import type { SqlRequest } from '@tollgate/connector-sql';
import type { Connector } from '@tollgate/core';

import { mysqlDialect } from './dialect.js';
import { mysqlKind } from './kind/kind.js';

/** The mysql kind with its connector: one entry in the list of kinds. */
export const mysqlConnector: Connector<SqlRequest> = sqlConnector(
  mysqlKind,
  // The driver (`mysql2`) loads with the first discovery or call, so reading the kind stays cheap.
  lazySqlDriver(mysqlDialect, () => import('./runtime.js')),
);
