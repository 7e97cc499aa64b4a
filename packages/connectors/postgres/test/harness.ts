import type { CredentialResolver } from '@tollgate/core';
import type { SqlPermissions, SqlPrincipal, SqlResourceSpec } from '@tollgate/connector-sql';

import { compilePostgres, executePg, shapePostgres } from '../src/index.js';

/** compile → execute → shape, as the executor will wire them, for one call. */
export async function callPostgres(
  resource: string,
  spec: SqlResourceSpec,
  permissions: SqlPermissions,
  principal: SqlPrincipal,
  credentials: CredentialResolver,
  operation: string,
  args: unknown,
) {
  const call = { resource, spec, permissions, principal, cursorKey: 'test-key' };
  const compiled = compilePostgres(operation, args, call);
  const { result } = await executePg(compiled.request, {
    resource,
    connection: spec.connection,
    credentials,
    deadline: Date.now() + 20_000,
  });
  return shapePostgres(compiled, result, call);
}
