/**
 * Operators' roles for a control-plane service: which roles the caller's Agent holds in its
 * tenant, from the tenant's policy bundle in the `tollgate_policy_bundles` KV bucket (roles
 * never come from a token or a request). The bundle is read at the time of each check — one KV
 * get, parsed again only when its revision changed — so an Agent applied a moment ago (the
 * policy service publishes before ApplyAgent returns) counts at once, and a role withdrawn
 * stops counting at once: no watcher to lag behind, no wait.
 */
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import type { KV } from '../bus/kv.js';

/** What a service reads out of the bytes stored under a tenant's key (the bundle format's owner parses). */
export type RolesReader = (
  tenant: string,
  stored: Uint8Array,
) => { ok: true; roles: ReadonlyMap<string, readonly string[]> } | { ok: false; reason: string };

/** The roles of a tenant's Agents as one revision of its bundle has them. */
interface Held {
  revision: number;
  /** Undefined when the bundle could not be read. */
  roles?: ReadonlyMap<string, readonly string[]>;
  reason?: string;
}

/** What a caller holds: its roles, or why none can be known. */
export type CallerRoles =
  | { state: 'declared'; roles: readonly string[] }
  | { state: 'undeclared' }
  | { state: 'no_agents' };

export class OperatorRoles {
  readonly #kv: KV;
  readonly #read: RolesReader;
  readonly #held = new Map<string, Held>();

  constructor(kv: KV, read: RolesReader) {
    this.#kv = kv;
    this.#read = read;
  }

  /**
   * The caller's roles in its own tenant now. POLICY_UNAVAILABLE when the bundles cannot be
   * read or the tenant's bundle is unusable (fail closed: nobody holds a role then).
   */
  async of(principal: Principal): Promise<CallerRoles> {
    const { tenant } = principal;
    let entry;
    try {
      entry = await this.#kv.get(tenant);
    } catch {
      throw new TollgateError(
        'POLICY_UNAVAILABLE',
        `The roles of tenant "${tenant}" cannot be read now (policy bundles unreachable); try again.`,
      );
    }
    if (entry === null || entry.operation !== 'PUT') {
      this.#held.delete(tenant);
      return { state: 'no_agents' };
    }
    let held = this.#held.get(tenant);
    if (held?.revision !== entry.revision) {
      const read = this.#read(tenant, entry.value);
      held = read.ok
        ? { revision: entry.revision, roles: read.roles }
        : { revision: entry.revision, reason: read.reason };
      this.#held.set(tenant, held);
    }
    if (held.roles === undefined) {
      throw new TollgateError(
        'POLICY_UNAVAILABLE',
        `The policy bundle of tenant "${tenant}" cannot be read, so nobody's roles are known until a valid one is published.`,
      );
    }
    if (held.roles.size === 0) return { state: 'no_agents' };
    const roles = held.roles.get(principal.agent);
    return roles === undefined ? { state: 'undeclared' } : { state: 'declared', roles };
  }

  /** Throws POLICY_DENIED unless the caller's Agent holds one of `roles`; `doing` completes "may not …". */
  async require(principal: Principal, roles: readonly string[], doing: string): Promise<void> {
    const held = await this.of(principal);
    if (held.state === 'declared' && roles.some((r) => held.roles.includes(r))) return;
    throw new TollgateError('POLICY_DENIED', refusal(principal, held, roles, doing));
  }
}

/** "the admin role", "the admin or viewer role", "the admin, approver or viewer role". */
export function roleList(roles: readonly string[]): string {
  const names =
    roles.length <= 1
      ? roles.join('')
      : `${roles.slice(0, -1).join(', ')} or ${roles[roles.length - 1]}`;
  return `the ${names} role`;
}

function refusal(
  principal: Principal,
  held: CallerRoles,
  roles: readonly string[],
  doing: string,
): string {
  const { tenant, agent } = principal;
  const needs = `"${agent}" may not ${doing}: that needs ${roleList(roles)}`;
  switch (held.state) {
    case 'no_agents':
      return `${needs}, and tenant "${tenant}" has no Agents declared (apply an Agent with the admin role first).`;
    case 'undeclared':
      return `${needs}, and "${agent}" is not a declared Agent of tenant "${tenant}".`;
    case 'declared':
      return `${needs}; its Agent in tenant "${tenant}" holds ${
        held.roles.length === 0 ? 'no roles' : held.roles.join(', ')
      }.`;
  }
}
