/**
 * A person signed in to the console, and the Tollgate principals that act for them.
 *
 * Operator roles come from the identity provider (a claim, optionally mapped); they are never
 * taken from the browser. Each role acts through its own declared Agent of the tenant
 * (`console-admin`, `console-approver`, `console-viewer`), with the person as the token's
 * `user`, so the services check the role again with their own rules and the audit trail names
 * both the role and the person.
 */

/** What a person may do in the console. */
export type OperatorRole = 'admin' | 'approver' | 'viewer';

export const OPERATOR_ROLES: readonly OperatorRole[] = ['admin', 'approver', 'viewer'];

/** The Agent each operator role acts as (declare these in every tenant the console manages). */
export const CONSOLE_AGENTS: Record<OperatorRole, string> = {
  admin: 'console-admin',
  approver: 'console-approver',
  viewer: 'console-viewer',
};

/** A signed-in person, as the identity provider described them. */
export interface Operator {
  /** `sub` of the ID token (or the dev sign-in name). */
  subject: string;
  /** What the audit trail and approvals record as the user: e-mail when given, else subject. */
  user: string;
  name: string;
  roles: OperatorRole[];
  /** Tenants this person manages; the first is the one a session starts in. */
  tenants: string[];
}

/** Settings of the claim → operator mapping. */
export interface ClaimMapping {
  rolesClaim: string;
  /** Claim value → role; empty: claim values are role names. */
  roleMap: Map<string, OperatorRole>;
  tenantsClaim: string;
  defaultTenant: string;
}

const TENANT = /^[a-z0-9][a-z0-9-]{0,62}$/;
const MAX_USER = 200;

/** Parses `TOLLGATE_CONSOLE_ROLE_MAP` (`value=role,…`), failing on an unknown role. */
export function parseRoleMap(text: string): Map<string, OperatorRole> {
  const map = new Map<string, OperatorRole>();
  for (const pair of text.split(',').map((s) => s.trim())) {
    if (pair === '') continue;
    const at = pair.lastIndexOf('=');
    const value = pair.slice(0, at).trim();
    const role = pair.slice(at + 1).trim();
    if (at <= 0 || !isRole(role)) {
      throw new Error(
        `TOLLGATE_CONSOLE_ROLE_MAP: "${pair}" is not value=role with a role of ${OPERATOR_ROLES.join(', ')}`,
      );
    }
    map.set(value, role);
  }
  return map;
}

function isRole(value: string): value is OperatorRole {
  return (OPERATOR_ROLES as readonly string[]).includes(value);
}

/**
 * The operator an ID token's claims describe, or why nobody may sign in with them: no usable
 * subject, no console role, or no valid tenant.
 */
export function operatorFromClaims(
  claims: Record<string, unknown>,
  mapping: ClaimMapping,
): { ok: true; operator: Operator } | { ok: false; reason: string } {
  const subject = typeof claims.sub === 'string' ? claims.sub : '';
  if (subject === '' || subject.length > MAX_USER)
    return { ok: false, reason: 'the ID token has no usable subject' };
  const email =
    typeof claims.email === 'string' && claims.email.length <= MAX_USER ? claims.email : '';
  const user = cleanUser(email || subject);
  const values = listClaim(claims[mapping.rolesClaim]);
  const roles = OPERATOR_ROLES.filter((role) =>
    values.some((value) =>
      mapping.roleMap.size === 0 ? value === role : mapping.roleMap.get(value) === role,
    ),
  );
  if (roles.length === 0) {
    return {
      ok: false,
      reason: `the identity provider gave "${user}" no console role (claim ${mapping.rolesClaim})`,
    };
  }
  const named = listClaim(claims[mapping.tenantsClaim]);
  const tenants = named.length > 0 ? named : [mapping.defaultTenant];
  const bad = tenants.find((t) => !TENANT.test(t));
  if (bad !== undefined) return { ok: false, reason: `"${bad.slice(0, 64)}" is not a tenant name` };
  const name =
    typeof claims.name === 'string' && claims.name.length <= MAX_USER ? claims.name : user;
  return { ok: true, operator: { subject, user, name, roles, tenants: [...new Set(tenants)] } };
}

function listClaim(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** A user name safe to put in a token and in audit: printable, no control characters. */
function cleanUser(value: string): string {
  return value.replace(/[^\x21-\x7e]/g, '_').slice(0, MAX_USER);
}

/** What each operation of the console needs. */
export const NEEDS = {
  read: ['admin', 'approver', 'viewer'],
  manage: ['admin'],
  decide: ['approver'],
  review: ['admin', 'approver'],
  explain: ['admin', 'approver'],
} as const satisfies Record<string, readonly OperatorRole[]>;

export type Capability = keyof typeof NEEDS;

/** True when the operator holds a role the capability needs. */
export function may(operator: Operator, capability: Capability): boolean {
  return (NEEDS[capability] as readonly OperatorRole[]).some((r) => operator.roles.includes(r));
}

/**
 * The role whose Agent performs a capability for this operator: the first of the needed
 * roles the operator holds (reads go through the strongest role held).
 */
export function actingRole(operator: Operator, capability: Capability): OperatorRole | undefined {
  return (NEEDS[capability] as readonly OperatorRole[]).find((r) => operator.roles.includes(r));
}
