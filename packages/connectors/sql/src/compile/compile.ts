import { TollgateError } from '@tollgate/core';
import type { CompileContext, CompiledRequest } from '@tollgate/core';

import type { SqlDialect } from '../dialect.js';
import type { SqlRequest } from '../native.js';
import { sqlSpec, sqlCompileContext } from '../resource.js';
import { compileAggregate } from './aggregate.js';
import type { SqlCompileContext } from './context.js';
import { compileCount, compileGet, compileSearch } from './read.js';
import { compileWrite } from './write.js';

/** Default statement timeout, ms, when the connection sets none. */
export const DEFAULT_TIMEOUT_MS = 5000;

type Compiled = Pick<CompiledRequest<SqlRequest>, 'fields' | 'page' | 'native'>;

const COMPILERS: Readonly<Record<string, (args: unknown, ctx: SqlCompileContext) => Compiled>> = {
  search: (args, ctx) => {
    const page = compileSearch(args, ctx);
    return {
      native: page.request,
      page: {
        limit: page.limit,
        sortKeys: page.request.keys?.length ?? 0,
        seal: page.seal,
        continued: page.continued,
      },
      fields: page.request.columns.filter((c) => !c.name.startsWith('__k')).map((c) => c.name),
    };
  },
  get: (args, ctx) => {
    const native = compileGet(args, ctx);
    return { native, fields: native.columns.map((c) => c.name) };
  },
  count: (args, ctx) => ({ native: compileCount(args, ctx), fields: [] }),
  aggregate: (args, ctx) => {
    const native = compileAggregate(args, ctx);
    return { native, fields: [...(native.aggregate?.labels ?? [])] };
  },
  insert: (args, ctx) => ({ native: compileWrite('insert', args, ctx), fields: [] }),
  update: (args, ctx) => ({ native: compileWrite('update', args, ctx), fields: [] }),
};

/**
 * Compiles one call into one parameterized statement (pure). The operation must be one the
 * resource offers (`offered`, the kind's operations) and granted to the principal; every
 * argument is then re-checked against the permission set.
 */
export function compileSql(
  kind: string,
  dialect: SqlDialect,
  offered: (ctx: CompileContext) => readonly string[],
  operation: string,
  args: unknown,
  ctx: CompileContext,
): CompiledRequest<SqlRequest> {
  const name = ctx.descriptor.metadata.name;
  const compiler = Object.hasOwn(COMPILERS, operation) ? COMPILERS[operation] : undefined;
  if (compiler === undefined) {
    throw new TollgateError('UNKNOWN_TOOL', `${name} has no operation "${String(operation)}".`);
  }
  if (!offered(ctx).includes(operation)) {
    const write = operation === 'insert' || operation === 'update';
    throw new TollgateError(
      'POLICY_DENIED',
      write && sqlSpec(ctx.descriptor).access.readonly !== false
        ? `${name} is read-only; ${operation} is not available.`
        : `${name} does not offer ${operation} (it has no primary key).`,
    );
  }
  if (!ctx.permissions.operations.includes(operation)) {
    throw new TollgateError(
      'POLICY_DENIED',
      `${operation} on ${name} is not permitted for this principal.`,
    );
  }
  const compiled = compiler(args, sqlCompileContext(ctx, dialect));
  return {
    kind,
    operation,
    resource: name,
    timeoutMs: sqlSpec(ctx.descriptor).connection.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    idempotent: compiled.native.mode === 'read' || operation === 'update',
    fields: [...compiled.fields].sort(),
    ...(compiled.page === undefined ? {} : { page: compiled.page }),
    native: compiled.native,
  };
}
