import { canonicalHash } from '@tollgate/core';

/** What an approval is bound to. */
export interface ApprovalBinding {
  principal: { tenant: string; agent: string; user?: string; environment?: string };
  resourceName: string;
  resourceVersion: number;
  tool: string;
  args: unknown;
}

/**
 * `sha256:<hex>` over the canonical JSON (sorted keys) of principal, resource, version, tool
 * and arguments. An approval stores it; a resumed call must hash to the same value, so an
 * approval for one set of arguments can never authorise different ones. Only the listed
 * principal attributes count (roles and the like are dropped).
 */
export function approvalBindingHash(binding: ApprovalBinding): string {
  const { tenant, agent, user, environment } = binding.principal;
  return `sha256:${canonicalHash({
    principal: { tenant, agent, user, environment },
    resourceName: binding.resourceName,
    resourceVersion: binding.resourceVersion,
    tool: binding.tool,
    args: binding.args ?? null,
  })}`;
}
