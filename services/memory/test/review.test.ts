import { describe, expect, it } from 'vitest';
import { Reviewers, canSee, canUse, reviewRefusal } from '../src/access/review.js';
import type { Caller } from '../src/access/review.js';
import type { LiveState } from '../src/live/policy-view.js';
import type { Actor, Owner } from '../src/types.js';

const policy = { reviewerRole: 'reviewer', fourEyes: true };
const as = (actor: Actor, reviewer: boolean): Caller => ({
  principal: {
    tenant: 't',
    agent: actor.agent,
    environment: 'prod',
    ...(actor.user ? { user: actor.user } : {}),
  },
  actor,
  reviewer,
});
const bot: Actor = { agent: 'bot', user: '' };
const botForAlice: Actor = { agent: 'bot', user: 'alice' };
const botForBob = as({ agent: 'bot', user: 'bob' }, false);
const orderOpsForAlice = as({ agent: 'order_ops', user: 'alice' }, false);
const consoleAlice = as({ agent: 'console', user: 'alice' }, true);
const consoleBob = as({ agent: 'console', user: 'bob' }, true);
const agentWide: Owner = { tenant: 't', agent: 'bot', user: '' };
const alices: Owner = { tenant: 't', agent: 'bot', user: 'alice' };

describe('review - who may confirm or approve', () => {
  it.each([
    ['an agent without a user claim', as(bot, false), bot, agentWide, 'no user claim'],
    ['the agent holding another user token', botForBob, botForAlice, agentWide, 'reviewer role'],
    ['another agent acting for a user', orderOpsForAlice, bot, alices, 'reviewer role'],
    ['a reviewer, for what an agent proposed alone', consoleAlice, bot, agentWide, undefined],
    ['a reviewer, in their own memory', consoleAlice, botForAlice, alices, undefined],
    [
      'the person whose session proposed it, agent-wide',
      consoleAlice,
      botForAlice,
      agentWide,
      'four eyes',
    ],
    ['another reviewer, agent-wide', consoleBob, botForAlice, agentWide, undefined],
  ])('review - %s', (_, reviewer, proposer, owner, refusal) => {
    const found = reviewRefusal(reviewer, proposer, owner, policy);
    if (refusal === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(refusal);
  });

  it('review - without four eyes the person who proposed it may confirm agent-wide', () => {
    expect(
      reviewRefusal(consoleAlice, botForAlice, agentWide, { ...policy, fourEyes: false }),
    ).toBeUndefined();
  });

  it('review - a reviewer is a person whose agent holds the role in the live bundle', () => {
    const live: LiveState = {
      rolesOf: (tenant, agent) =>
        tenant === 't' ? (agent === 'console' ? ['reviewer'] : ['support']) : undefined,
      access: () => undefined,
      toolNames: () => new Set(),
      toolOf: () => undefined,
    };
    const reviewers = new Reviewers(live, policy);
    const principal = { tenant: 't', environment: 'prod' };
    expect(reviewers.caller({ ...principal, agent: 'console', user: 'alice' }).reviewer).toBe(true);
    expect(reviewers.caller({ ...principal, agent: 'console' }).reviewer).toBe(false);
    expect(reviewers.caller({ ...principal, agent: 'bot', user: 'alice' }).reviewer).toBe(false);
    expect(
      reviewers.caller({ ...principal, tenant: 'other', agent: 'console', user: 'alice' }).reviewer,
    ).toBe(false);
  });
});

describe('review - who may see', () => {
  const principal = (agent: string, user?: string) => ({
    tenant: 't',
    agent,
    environment: 'prod',
    ...(user ? { user } : {}),
  });
  it.each([
    ['its own agent-wide memory', as(bot, false), agentWide, true],
    ["its user's memory", as(botForAlice, false), alices, true],
    ["another user's memory", botForBob, alices, false],
    ['a user memory without a user claim', as(bot, false), alices, false],
    ["the reviewer's own memory of another agent", consoleAlice, alices, true],
    ["another agent's shared memory as a reviewer", consoleBob, agentWide, true],
    ["another user's memory as a reviewer", consoleBob, alices, false],
    ["another agent's shared memory as an agent for a user", orderOpsForAlice, agentWide, false],
    ['another tenant', as(bot, false), { ...agentWide, tenant: 'u' }, false],
  ])('review - %s', (_, caller, owner, visible) => {
    expect(canSee(caller, owner)).toBe(visible);
  });

  it('review - using is only ever the own agent', () => {
    expect(canUse(principal('bot', 'alice'), alices)).toBe(true);
    expect(canUse(principal('console', 'alice'), alices)).toBe(false);
  });
});
