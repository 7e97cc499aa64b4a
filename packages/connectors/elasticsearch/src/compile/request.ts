import type { CompileContext, CompiledRequest, PageInfo } from '@tollgate/core';

import type { EsRequest } from '../native.js';

/** Default upstream timeout per attempt when the connection sets none, ms. */
export const DEFAULT_TIMEOUT_MS = 5000;

/** Wraps a native request with what execute and shape need. */
export function compiledRequest<N extends EsRequest>(
  ctx: CompileContext,
  operation: string,
  fields: string[],
  native: N,
  page?: PageInfo,
): CompiledRequest<N> {
  return {
    kind: 'elasticsearch',
    operation,
    resource: ctx.descriptor.metadata.name,
    timeoutMs: ctx.descriptor.spec.connection.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    // Writes are sent exactly once, even the idempotent upsert: a retry after an ambiguous
    // failure would be a second write the audit trail does not show.
    idempotent: operation !== 'write',
    fields,
    ...(page === undefined ? {} : { page }),
    native,
  };
}
