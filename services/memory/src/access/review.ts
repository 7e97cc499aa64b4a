/**
 * Who may see a memory item, and who may confirm or approve one.
 *
 * A reviewer is a person at a review surface: a principal with a user claim whose agent holds
 * the reviewer role (`TOLLGATE_MEMORY_REVIEWER_ROLE`, default `reviewer`) in its tenant's live
 * policy bundle — the command line's or the console's agent, never an agent that acts for
 * someone. Roles come from the bundle, never from a token or a request.
 *
 * Seeing. A principal *uses* the memory of its own tenant and agent: the agent-wide items and
 * those of its own user. A reviewer may also see, through its review surface, the agent-wide
 * items of every agent of its tenant and its own user's items there. Nobody ever sees another
 * tenant's or another user's items.
 *
 * Reviewing (confirming a candidate or a staged preference, approving or rejecting a revision)
 * needs a reviewer. Four eyes (`TOLLGATE_MEMORY_FOUR_EYES`, on by default): what is proposed
 * for every user of an agent is never confirmed by the person whose session proposed it. A
 * person's own facts are theirs to confirm. The proposer may always withdraw (reject) its own
 * proposal.
 */
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import type { LiveState } from '../live/policy-view.js';
import type { Actor, Owner } from '../types.js';

/** A verified caller as memory sees it. */
export interface Caller {
  principal: Principal;
  actor: Actor;
  /** A person at a review surface (see the module comment). */
  reviewer: boolean;
}

/** The review settings. */
export interface ReviewPolicy {
  reviewerRole: string;
  fourEyes: boolean;
}

/** The actor a verified principal is. */
export function actorOf(principal: Principal): Actor {
  return { agent: principal.agent, user: principal.user ?? '' };
}

/** Tells reviewers from everyone else, from the live policy bundles. */
export class Reviewers {
  readonly #live: LiveState;
  readonly #policy: ReviewPolicy;

  constructor(live: LiveState, policy: ReviewPolicy) {
    this.#live = live;
    this.#policy = policy;
  }

  get fourEyes(): boolean {
    return this.#policy.fourEyes;
  }

  caller(principal: Principal): Caller {
    const roles = this.#live.rolesOf(principal.tenant, principal.agent) ?? [];
    return {
      principal,
      actor: actorOf(principal),
      reviewer: principal.user !== undefined && roles.includes(this.#policy.reviewerRole),
    };
  }

  /** Throws POLICY_DENIED unless `caller` may review what `proposer` proposed in `owner`'s memory. */
  assertMayReview(caller: Caller, proposer: Actor, owner: Owner): void {
    const refusal = reviewRefusal(caller, proposer, owner, this.#policy);
    if (refusal !== undefined)
      throw new TollgateError('POLICY_DENIED', `Review refused: ${refusal}.`);
  }
}

/** True when the item is part of the principal's own memory (its agent, its user or agent-wide). */
export function canUse(principal: Principal, owner: Owner): boolean {
  return (
    owner.tenant === principal.tenant &&
    owner.agent === principal.agent &&
    (owner.user === '' || owner.user === (principal.user ?? ''))
  );
}

/** True when the caller may see the item, to use it or (as a reviewer) to review it. */
export function canSee(caller: Caller, owner: Owner): boolean {
  if (canUse(caller.principal, owner)) return true;
  return (
    caller.reviewer &&
    owner.tenant === caller.principal.tenant &&
    (owner.user === '' || owner.user === caller.actor.user)
  );
}

/** Why `caller` may not review what `proposer` proposed in `owner`'s memory, or undefined. */
export function reviewRefusal(
  caller: Pick<Caller, 'actor' | 'reviewer'>,
  proposer: Actor,
  owner: Owner,
  policy: Pick<ReviewPolicy, 'fourEyes' | 'reviewerRole'>,
): string | undefined {
  if (caller.actor.user === '') return 'a person must review this: the caller has no user claim';
  if (!caller.reviewer) {
    return `a person must review this at a review surface: agent ${caller.actor.agent} does not hold the ${policy.reviewerRole} role (an agent acting for a user never confirms)`;
  }
  if (
    policy.fourEyes &&
    owner.user === '' &&
    proposer.user !== '' &&
    proposer.user === caller.actor.user
  ) {
    return 'four eyes: what is proposed for every user of an agent is confirmed by another person than the one whose session proposed it';
  }
  return undefined;
}

/** True when `actor` proposed it (and may therefore withdraw it). */
export function isProposer(actor: Actor, proposer: Actor): boolean {
  return actor.agent === proposer.agent && actor.user === proposer.user;
}
