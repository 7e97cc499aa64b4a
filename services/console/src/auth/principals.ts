import { issuePrincipalToken } from '@tollgate/core';
import type { IssuerKeys, Principal } from '@tollgate/core';
import { CONSOLE_AGENTS } from './operator.js';
import type { OperatorRole } from './operator.js';
import type { Session } from './sessions.js';

/** Lifetime of the tokens the console mints, seconds; renewed a minute before they end. */
const TOKEN_TTL_SECONDS = 300;
const RENEW_BEFORE_MS = 60_000;
const MAX_CACHED = 5_000;

/**
 * Mints the short-lived principal tokens the console calls the services with: one of the
 * console's role agents for operator work, or — for the tools playground, admins only — the
 * agent under test, always with the signed-in person as `user`.
 */
export class PrincipalTokens {
  readonly #keys: IssuerKeys;
  readonly #environment: string;
  readonly #cache = new Map<string, { token: string; renewAt: number }>();

  constructor(keys: IssuerKeys, environment: string) {
    this.#keys = keys;
    this.#environment = environment;
  }

  get environment(): string {
    return this.#environment;
  }

  /** The principal the role's console agent is for this session's person and tenant. */
  rolePrincipal(session: Session, role: OperatorRole, tenant = session.tenant): Principal {
    return {
      tenant,
      agent: CONSOLE_AGENTS[role],
      environment: this.#environment,
      user: session.operator.user,
    };
  }

  /** A token for `role` acting for the session's person. */
  forRole(session: Session, role: OperatorRole, tenant = session.tenant): Promise<string> {
    return this.forPrincipal(this.rolePrincipal(session, role, tenant));
  }

  /** A token for `agent` of the session's tenant acting for the session's person. */
  forAgent(session: Session, agent: string): Promise<string> {
    return this.forPrincipal({
      tenant: session.tenant,
      agent,
      environment: this.#environment,
      user: session.operator.user,
    });
  }

  async forPrincipal(principal: Principal): Promise<string> {
    const key = `${principal.tenant}\n${principal.agent}\n${principal.environment}\n${principal.user ?? ''}`;
    const now = Date.now();
    const cached = this.#cache.get(key);
    if (cached !== undefined && cached.renewAt > now) return cached.token;
    const token = await issuePrincipalToken(this.#keys, principal, {
      ttlSeconds: TOKEN_TTL_SECONDS,
    });
    if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
    this.#cache.set(key, { token, renewAt: now + TOKEN_TTL_SECONDS * 1000 - RENEW_BEFORE_MS });
    return token;
  }
}
