import { describe, expect, it } from 'vitest';
import { canSee, canUse, reviewRefusal } from '../src/access/review.js';
import type { Actor, Owner } from '../src/types.js';

const bot: Actor = { agent: 'bot', user: '' };
const botForAlice: Actor = { agent: 'bot', user: 'alice' };
const botForBob: Actor = { agent: 'bot', user: 'bob' };
const consoleAlice: Actor = { agent: 'console', user: 'alice' };
const consoleBob: Actor = { agent: 'console', user: 'bob' };
const consoleCarol: Actor = { agent: 'console', user: 'carol' };
const agentWide: Owner = { tenant: 't', agent: 'bot', user: '' };
const alices: Owner = { tenant: 't', agent: 'bot', user: 'alice' };
const consoleWide: Owner = { tenant: 't', agent: 'console', user: '' };

describe('review - who may confirm or approve', () => {
  it.each([
    ['an agent without a user claim', bot, bot, agentWide, 'a person must review'],
    [
      'the proposing agent, even holding its user token',
      botForAlice,
      bot,
      alices,
      'agent bot proposed this',
    ],
    ['a person through another agent, for an agent proposal', consoleAlice, bot, alices, undefined],
    [
      'another person through the same agent, for an agent proposal',
      botForBob,
      bot,
      agentWide,
      'agent bot proposed this',
    ],
    [
      'the proposing person through the same agent',
      botForAlice,
      botForAlice,
      alices,
      'self-approval',
    ],
    [
      'the proposing person through another agent, in their own memory',
      consoleAlice,
      botForAlice,
      alices,
      undefined,
    ],
    [
      'the proposing person through another agent, in shared memory',
      consoleAlice,
      botForAlice,
      agentWide,
      'self-approval',
    ],
    [
      'another person, for a person proposal in shared memory',
      botForBob,
      botForAlice,
      agentWide,
      undefined,
    ],
    ['a colleague through the console', consoleCarol, consoleBob, consoleWide, undefined],
    ['the author through the console', consoleBob, consoleBob, consoleWide, 'self-approval'],
  ])('review - %s', (_case, reviewer, proposer, owner, refusal) => {
    const found = reviewRefusal(reviewer, proposer, owner);
    if (refusal === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(refusal);
  });
});

describe('review - who may see', () => {
  const p = (agent: string, user?: string, tenant = 't') => ({
    tenant,
    agent,
    environment: 'prod',
    ...(user ? { user } : {}),
  });

  it.each([
    ['its own agent-wide memory', p('bot'), agentWide, true, true],
    ["its user's memory", p('bot', 'alice'), alices, true, true],
    ["another user's memory", p('bot', 'bob'), alices, false, false],
    ['a user memory without a user claim', p('bot'), alices, false, false],
    [
      "the person's memory through another agent (review only)",
      p('console', 'alice'),
      alices,
      false,
      true,
    ],
    [
      "another agent's shared memory as a person (review only)",
      p('console', 'bob'),
      agentWide,
      false,
      true,
    ],
    ["another agent's shared memory as an agent", p('console'), agentWide, false, false],
    ['another tenant', p('bot', 'alice', 'other'), alices, false, false],
  ])('review - %s', (_case, principal, owner, use, see) => {
    expect(canUse(principal, owner)).toBe(use);
    expect(canSee(principal, owner)).toBe(see);
  });
});
