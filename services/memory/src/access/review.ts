/**
 * Who may see a memory item, and who may confirm or approve one.
 *
 * Seeing. A principal *uses* the memory of its own tenant and agent: the agent-wide items and
 * those of its own user. A person — a principal with a user claim — may also *review*, through
 * any agent of the tenant, the agent-wide items of other agents and the items of their own
 * user. Nobody ever sees another tenant's or another user's items.
 *
 * Reviewing (confirming a candidate or a staged preference, approving or rejecting a revision):
 * 1. the reviewer must be a person (carry a user claim);
 * 2. what an agent proposed — explicitly without a user claim, or through the calls it made —
 *    must be reviewed through another agent: an agent may hold its user's token, so the agent
 *    that proposed something never confirms it;
 * 3. what a person proposed must be reviewed by another person; in that person's own memory,
 *    which nobody else can see, they confirm through another agent than the one that proposed.
 * The proposer may always withdraw (reject) their own proposal.
 */
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import type { Actor, Owner } from '../types.js';

/** The actor a verified principal is. */
export function actorOf(principal: Principal): Actor {
  return { agent: principal.agent, user: principal.user ?? '' };
}

/** True when the item is part of the principal's own memory (its agent, its user or agent-wide). */
export function canUse(principal: Principal, owner: Owner): boolean {
  return (
    owner.tenant === principal.tenant &&
    owner.agent === principal.agent &&
    (owner.user === '' || owner.user === (principal.user ?? ''))
  );
}

/** True when the principal may see the item, to use it or (as a person) to review it. */
export function canSee(principal: Principal, owner: Owner): boolean {
  if (canUse(principal, owner)) return true;
  const user = principal.user ?? '';
  return (
    user !== '' && owner.tenant === principal.tenant && (owner.user === '' || owner.user === user)
  );
}

/** Why `reviewer` may not review what `proposer` proposed in `owner`'s memory, or undefined. */
export function reviewRefusal(reviewer: Actor, proposer: Actor, owner: Owner): string | undefined {
  if (reviewer.user === '') {
    return 'a person must review this: the caller has no user claim';
  }
  if (proposer.user === '') {
    return reviewer.agent === proposer.agent
      ? `agent ${proposer.agent} proposed this and may not confirm it; review it through another agent`
      : undefined;
  }
  if (reviewer.user !== proposer.user) return undefined;
  if (owner.user === proposer.user && reviewer.agent !== proposer.agent) return undefined;
  return 'self-approval: the proposer may not approve their own proposal';
}

/** Throws POLICY_DENIED unless `reviewer` may review the proposal. */
export function assertMayReview(reviewer: Actor, proposer: Actor, owner: Owner): void {
  const refusal = reviewRefusal(reviewer, proposer, owner);
  if (refusal !== undefined)
    throw new TollgateError('POLICY_DENIED', `Review refused: ${refusal}.`);
}

/** True when `actor` proposed it (and may therefore withdraw it). */
export function isProposer(actor: Actor, proposer: Actor): boolean {
  return actor.agent === proposer.agent && actor.user === proposer.user;
}
