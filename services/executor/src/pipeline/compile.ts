import { createHmac } from 'node:crypto';
import type {
  CompileContext,
  CompiledRequest,
  Connector,
  Operation,
  Principal,
} from '@tollgate/core';

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

/**
 * The key a connector seals this principal's cursors with: the executor's cursor key bound to
 * tenant, environment, agent and user. A cursor handed to one principal is then refused for any
 * other — another agent, or the same agent for another user — even for the very same query.
 */
export function principalCursorKey(cursorKey: string, principal: Principal): string {
  const who = [principal.tenant, principal.environment, principal.agent, principal.user ?? ''];
  return createHmac('sha256', cursorKey).update(JSON.stringify(who)).digest('base64url');
}
