import type { CompileContext, CompiledRequest, Connector, Operation } from '@tollgate/core';

/**
 * Turns validated arguments into the native request — pure, in the connector, which re-checks
 * every argument against the permission set and always adds the descriptor's row filter. The
 * model's input never becomes query text: no query_string, scripts, regexp, wildcard or
 * runtime mappings exist in what a connector can emit.
 */
export function compileCall(
  connector: Connector,
  operation: Operation,
  args: Record<string, unknown>,
  ctx: CompileContext,
): CompiledRequest {
  return connector.compile(operation, args, ctx);
}
