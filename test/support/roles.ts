/**
 * Declares Agents and their roles for a tenant the way the policy service publishes them: a
 * real compiled bundle (Agents only) in a policy bundles KV bucket. For tests of a service that
 * reads operators' roles (registry, …) without running the policy service; tests of the roles
 * themselves run the policy service.
 */
import type { AgentDescriptor } from '@tollgate/core';
import type { KV } from '@tollgate/kit';
import { compileBundle, encodeBundle } from '@tollgate/policy';

/** Puts a bundle for `tenant` declaring `agents` (name → roles) into `kv`, replacing the tenant's. */
export async function declareAgents(
  kv: KV,
  tenant: string,
  agents: Record<string, readonly string[]>,
  version = 1,
): Promise<void> {
  const descriptors: AgentDescriptor[] = Object.entries(agents).map(([name, roles]) => ({
    apiVersion: 'tollgate.dev/v1',
    kind: 'Agent',
    metadata: { name, tenant },
    spec: { roles: [...roles] },
  }));
  const compiled = compileBundle({
    tenant,
    version,
    agents: descriptors,
    policies: [],
    resources: [],
  });
  if (!compiled.ok) throw new Error(`bundle of ${tenant}: ${JSON.stringify(compiled.problems)}`);
  await kv.put(tenant, encodeBundle(compiled.bundle));
}
