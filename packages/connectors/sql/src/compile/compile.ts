import { TollgateError } from '@tollgate/core';

import type { SqlRequest } from '../native.js';
import { compileAggregate } from './aggregate.js';
import type { SqlCompileContext } from './context.js';
import { compileCount, compileGet, compileSearch } from './read.js';
import { compileWrite } from './write.js';

/** The operations a SQL resource can offer. */
export type SqlOperation = 'search' | 'get' | 'count' | 'aggregate' | 'insert' | 'update' | 'write';

/** What a compiled call carries to execute and shape. */
export interface CompiledSql {
  request: SqlRequest;
  /** search only: the page asked for and the seal its cursor is signed with. */
  page?: { limit: number; seal: string; continued: boolean };
  /** Columns the result may contain (requested ∩ visible), sorted. */
  fields: string[];
}

/**
 * Operations a table offers: reads always (`get` only with a primary key); `insert`, and with
 * a key `update` and `write`, only when the resource is not read-only and is a table.
 */
export function sqlOperations(
  table: { kind: 'table' | 'view'; primaryKey: readonly string[] },
  readonly: boolean,
): SqlOperation[] {
  const keyed = table.primaryKey.length > 0;
  const reads: SqlOperation[] = keyed
    ? ['search', 'get', 'count', 'aggregate']
    : ['search', 'count', 'aggregate'];
  if (readonly || table.kind === 'view') return reads;
  return keyed ? [...reads, 'insert', 'update', 'write'] : [...reads, 'insert'];
}

/**
 * Compiles one call into parameterized SQL. The operation must be offered by the table and
 * granted to the principal; every argument is then re-checked against the permission set.
 */
export function compileSql(operation: string, args: unknown, ctx: SqlCompileContext): CompiledSql {
  const offered = sqlOperations(ctx.table, ctx.readonly);
  if (!offered.includes(operation as SqlOperation)) {
    const write = ['insert', 'update', 'write'].includes(operation);
    if (write && ctx.readonly)
      throw new TollgateError(
        'POLICY_DENIED',
        `${ctx.resource} is read-only; ${operation} is not available.`,
      );
    throw new TollgateError('UNKNOWN_TOOL', `${ctx.resource} has no operation "${operation}".`);
  }
  if (!ctx.permissions.operations.includes(operation)) {
    throw new TollgateError(
      'POLICY_DENIED',
      `${operation} on ${ctx.resource} is not permitted for this principal.`,
    );
  }
  switch (operation as SqlOperation) {
    case 'search': {
      const page = compileSearch(args, ctx);
      const fields = page.request.columns
        .filter((c) => !c.name.startsWith('__k'))
        .map((c) => c.name);
      return {
        request: page.request,
        page: { limit: page.limit, seal: page.seal, continued: page.continued },
        fields,
      };
    }
    case 'get': {
      const request = compileGet(args, ctx);
      return { request, fields: request.columns.map((c) => c.name) };
    }
    case 'count':
      return { request: compileCount(args, ctx), fields: [] };
    case 'aggregate': {
      const request = compileAggregate(args, ctx);
      return { request, fields: [...(request.aggregate?.labels ?? [])] };
    }
    case 'insert':
      return { request: compileWrite('insert', args, ctx), fields: [] };
    case 'update':
      return { request: compileWrite('update', args, ctx), fields: [] };
    case 'write':
      return { request: compileWrite('upsert', args, ctx), fields: [] };
  }
}
