import { TollgateError } from '@tollgate/core';
import type { CompileContext, CompiledRequest, Operation } from '@tollgate/core';

import type { EsRequest } from '../native.js';
import { compileAggregate } from './aggregate.js';
import { compileCount, compileGet, compileSearch } from './read.js';
import { compileWrite } from './write.js';

const COMPILERS: Record<
  Operation,
  (args: unknown, ctx: CompileContext) => CompiledRequest<EsRequest>
> = {
  search: compileSearch,
  get: compileGet,
  count: compileCount,
  aggregate: compileAggregate,
  write: compileWrite,
};

/** Operations an Elasticsearch resource offers: reads always, `write` when not read-only. */
export function elasticsearchOperations(readonly: boolean | undefined): Operation[] {
  const reads: Operation[] = ['search', 'get', 'count', 'aggregate'];
  return readonly === false ? [...reads, 'write'] : reads;
}

/**
 * Compiles one call. The operation must be offered by the resource and granted to the
 * principal; the arguments are then re-checked field by field (see each compiler).
 */
export function compileRequest(
  operation: Operation,
  args: unknown,
  ctx: CompileContext,
): CompiledRequest<EsRequest> {
  const name = ctx.descriptor.metadata.name;
  if (!Object.hasOwn(COMPILERS, operation)) {
    throw new TollgateError('UNKNOWN_TOOL', `${name} has no operation "${String(operation)}".`);
  }
  if (!elasticsearchOperations(ctx.descriptor.spec.access.readonly).includes(operation)) {
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
  return COMPILERS[operation](args, ctx);
}
