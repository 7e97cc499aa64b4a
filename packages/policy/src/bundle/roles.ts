import { parseBundle } from './parse.js';
import type { PolicyBundle } from './types.js';

/** Agent name → its roles (sorted, unique), from a bundle's Agent entities and their Role parents. */
export function agentRoles(bundle: PolicyBundle): Map<string, string[]> {
  const roles = new Map<string, string[]>();
  for (const entity of bundle.entities) {
    const uid = entity.uid as { type?: unknown; id?: unknown };
    if (uid.type !== 'Agent' || typeof uid.id !== 'string') continue;
    const parents = (entity.parents ?? []) as { type?: unknown; id?: unknown }[];
    const names = parents
      .filter((p) => p.type === 'Role' && typeof p.id === 'string')
      .map((p) => p.id as string);
    roles.set(uid.id, [...new Set(names)].sort());
  }
  return roles;
}

/** What the bundle stored under a tenant's key says about its Agents' roles. */
export type BundleRoles =
  { ok: true; roles: Map<string, string[]> } | { ok: false; reason: string };

/**
 * The Agents' roles of the bundle stored under `tenant` (gzip'd or plain JSON), read as
 * strictly as a decider reads it: a bundle that does not parse, or that is another tenant's,
 * gives nobody a role.
 */
export function readBundleRoles(tenant: string, stored: Uint8Array): BundleRoles {
  const parsed = parseBundle(stored);
  if (!parsed.ok) return parsed;
  if (parsed.bundle.tenant !== tenant) {
    return {
      ok: false,
      reason: `the bundle stored under "${tenant}" is for tenant "${parsed.bundle.tenant}"`,
    };
  }
  return { ok: true, roles: agentRoles(parsed.bundle) };
}
