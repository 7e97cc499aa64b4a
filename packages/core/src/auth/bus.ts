import { createHash } from 'node:crypto';
import type { Principal } from './token.js';

/**
 * The audience of a token that may only read its tenant's completion events on the bus
 * (a service reacting to agents' completed calls); the executor and the control plane refuse it.
 */
export const EVENTS_TOKEN_AUDIENCE = 'tollgate-events';

/**
 * The NATS inbox prefix of one principal (docs/bus.md): the only subjects an agent connected
 * with its token may subscribe to are `<prefix>.>`. Its request replies arrive there, and the
 * executor sends the principal's completion notices to `<prefix>.completed`. Derived from the
 * principal alone, so the SDK, the auth callout and the executor compute the same one; the hash
 * keeps principal names (which may hold any character in `user`) out of subjects.
 */
export function agentInboxPrefix(
  principal: Pick<Principal, 'tenant' | 'environment' | 'agent' | 'user'>,
): string {
  const digest = createHash('sha256')
    .update(
      [principal.tenant, principal.environment, principal.agent, principal.user ?? ''].join(
        '\u0000',
      ),
    )
    .digest('hex')
    .slice(0, 32);
  return `_INBOX_A.${digest}`;
}

/** Where a principal's completion notices go: `<agentInboxPrefix>.completed`. */
export function agentCompletionSubject(
  principal: Pick<Principal, 'tenant' | 'environment' | 'agent' | 'user'>,
): string {
  return `${agentInboxPrefix(principal)}.completed`;
}
