import { TollgateError, findOperation } from '@tollgate/core';
import type { CompileContext, CompiledRequest } from '@tollgate/core';

import { elasticsearchKind } from '../kind/kind.js';
import type { EsRequest } from '../native.js';
import { compileAggregate } from './aggregate.js';
import { compileCount, compileGet, compileSearch } from './read.js';
import { compileWrite } from './write.js';

const COMPILERS: Readonly<
  Record<string, (args: unknown, ctx: CompileContext) => CompiledRequest<EsRequest>>
> = {
  search: compileSearch,
  get: compileGet,
  count: compileCount,
  aggregate: compileAggregate,
  write: compileWrite,
};

/**
 * Compiles one call. The operation must be offered by the resource and granted to the
 * principal; the arguments are then re-checked field by field (see each compiler).
 */
export function compileRequest(
  operation: string,
  args: unknown,
  ctx: CompileContext,
): CompiledRequest<EsRequest> {
  const name = ctx.descriptor.metadata.name;
  const compiler = Object.hasOwn(COMPILERS, operation) ? COMPILERS[operation] : undefined;
  if (compiler === undefined) {
    throw new TollgateError('UNKNOWN_TOOL', `${name} has no operation "${String(operation)}".`);
  }
  if (findOperation(elasticsearchKind.operations(ctx.descriptor), operation) === undefined) {
    throw new TollgateError(
      'POLICY_DENIED',
      `${name} is read-only; ${operation} is not available.`,
    );
  }
  if (!ctx.permissions.operations.includes(operation)) {
    throw new TollgateError(
      'POLICY_DENIED',
      `${operation} on ${name} is not permitted for this principal.`,
    );
  }
  return compiler(args, ctx);
}
