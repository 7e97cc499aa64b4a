import type { RpcContext } from '@tollgate/contracts';
import { TollgateError } from '@tollgate/core';
import type { Principal, TokenVerifier } from '@tollgate/core';

/** The caller of a control-plane RPC, from its `authorization: Bearer` token. */
export async function authenticateRpc(
  context: RpcContext,
  verifier: TokenVerifier,
): Promise<Principal> {
  return verifier.verify(context.bearerToken());
}

/**
 * The tenant a request acts on: the caller's own. A request naming another tenant is refused
 * (tenants are hard boundaries); an empty tenant field means the caller's.
 */
export function tenantOf(principal: Principal, requested: string | undefined): string {
  if (requested && requested !== principal.tenant) {
    throw new TollgateError('TENANT_MISMATCH', `Tenant "${requested}" is not the caller's tenant.`);
  }
  return principal.tenant;
}
