import { addService } from '@tollgate/contracts';
import type { RpcContext } from '@tollgate/contracts';
import { AuditService } from '@tollgate/contracts/audit/v1';
import type { TokenVerifier } from '@tollgate/core';
import { authenticateRpc, tenantOf, tollgateErrorToRpc } from '@tollgate/kit';
import type { Logger, OperatorRoles } from '@tollgate/kit';
import type { AuditTrail } from './audit.js';

/**
 * Who may read the audit trail (every method): the tenant's operators — Agents holding the
 * `admin`, `approver` or `viewer` role. An agent never reads it: the trail holds every agent's
 * and every user's calls and arguments.
 */
export const AUDIT_READERS: readonly string[] = ['admin', 'approver', 'viewer'];

/**
 * Registers the audit gRPC API. Every call authenticates its bearer token, acts on the
 * caller's tenant only (a request naming another tenant is refused) and needs one of
 * `AUDIT_READERS` in that tenant (PERMISSION_DENIED naming them).
 */
export function registerAuditApi(
  server: Parameters<typeof addService>[0],
  deps: { trail: AuditTrail; verifier: TokenVerifier; roles: OperatorRoles; logger: Logger },
): void {
  const { trail, verifier, logger } = deps;
  const tenant = async (context: RpcContext, requested: string) => {
    const principal = await authenticateRpc(context, verifier);
    const owner = tenantOf(principal, requested);
    await deps.roles.require(principal, AUDIT_READERS, 'read the audit trail');
    return owner;
  };
  addService(
    server,
    AuditService,
    {
      query: async (request, context) =>
        trail.query(await tenant(context, request.tenant), request),
      replaySession: async (request, context) =>
        trail.replaySession(await tenant(context, request.tenant), request),
      exportSession: async function* (request, context) {
        const owner = await tenant(context, request.tenant);
        for await (const jsonl of trail.exportSession(owner, request)) yield { jsonl };
      },
      stats: async (request, context) =>
        trail.stats(await tenant(context, request.tenant), request),
      verify: async (request, context) =>
        trail.verify(await tenant(context, request.tenant), request),
    },
    {
      mapError: tollgateErrorToRpc,
      onUnexpectedError: (err, context) =>
        logger.error(
          {
            method: context.method,
            err: { name: (err as Error)?.name, message: (err as Error)?.message },
          },
          'audit rpc failed',
        ),
    },
  );
}
