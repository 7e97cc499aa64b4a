import type { ShapedResult } from '@tollgate/core';
import { compileSql, shapeSqlResult, sqlCompileContext } from '@tollgate/connector-sql';
import type {
  CompiledSql,
  SqlPermissions,
  SqlPrincipal,
  SqlResourceSpec,
  SqlResult,
} from '@tollgate/connector-sql';

import { postgresDialect } from './dialect.js';

/** One call's inputs as the executor knows them. */
export interface PgCall {
  resource: string;
  spec: SqlResourceSpec;
  permissions: SqlPermissions;
  principal: SqlPrincipal;
  cursorKey?: string;
}

/** Compiles one call to parameterized PostgreSQL (pure). */
export function compilePostgres(operation: string, args: unknown, call: PgCall): CompiledSql {
  const ctx = sqlCompileContext(
    call.resource,
    call.spec,
    call.permissions,
    call.principal,
    postgresDialect,
    call.cursorKey,
  );
  return compileSql(operation, args, ctx);
}

/** Shapes a result for the principal (pure). */
export function shapePostgres(
  compiled: CompiledSql,
  result: SqlResult,
  call: Pick<PgCall, 'resource' | 'spec' | 'permissions'>,
  maxBytes?: number,
): ShapedResult {
  return shapeSqlResult(compiled.request, result, {
    resource: call.resource,
    visibleFields: compiled.fields.filter((f) => call.permissions.visibleFields.includes(f)),
    ...(call.spec.access.redact === undefined ? {} : { redact: call.spec.access.redact }),
    ...(compiled.page === undefined ? {} : { page: compiled.page }),
    ...(maxBytes === undefined ? {} : { maxBytes }),
  });
}
