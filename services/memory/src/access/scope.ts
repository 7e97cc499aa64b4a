/**
 * Which part of memory a request reads or writes, from the verified principal and the
 * optional `user` / `agent` request fields.
 */
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import type { Document } from 'mongodb';
import type { Owner } from '../types.js';
import type { Caller } from './review.js';

const AGENT = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * The owner a write goes to: the caller's agent (or, for a reviewer, `requestedAgent` of its
 * tenant), agent-wide (`user` empty) or the caller's own user.
 */
export function writeOwner(
  principal: Principal,
  requestedUser: string,
  requestedAgent = '',
  reviewer = false,
): Owner {
  const agent = requestedAgent === '' ? principal.agent : requestedAgent;
  if (agent !== principal.agent) {
    if (!AGENT.test(agent)) {
      throw new TollgateError('INVALID_ARGUMENT', 'agent is not an agent name.', {
        details: [
          { path: 'agent', message: 'not an agent name', expected: '[a-z0-9][a-z0-9_-]{0,62}' },
        ],
      });
    }
    if (!reviewer) {
      throw new TollgateError(
        'POLICY_DENIED',
        "Only a reviewer (a person at a review surface) may write another agent's memory.",
      );
    }
  }
  if (requestedUser !== '' && requestedUser !== (principal.user ?? '')) {
    throw new TollgateError('POLICY_DENIED', 'Memory of another user cannot be written.', {
      details: [
        {
          path: 'user',
          message: "not the caller's user",
          expected: `empty or ${principal.user ?? '(no user)'}`,
        },
      ],
    });
  }
  return { tenant: principal.tenant, agent, user: requestedUser };
}

/**
 * The filter for a listing: the caller's agent (its agent-wide items and its user's), or — for
 * a reviewer — another agent's agent-wide items and the reviewer's own there.
 */
export function listScope(caller: Caller, request: { agent: string; user?: string }): Document {
  const { principal } = caller;
  const user = principal.user ?? '';
  const agent = request.agent === '' ? principal.agent : request.agent;
  if (!AGENT.test(agent)) {
    throw new TollgateError('INVALID_ARGUMENT', 'agent is not an agent name.', {
      details: [
        { path: 'agent', message: 'not an agent name', expected: '[a-z0-9][a-z0-9_-]{0,62}' },
      ],
    });
  }
  if (agent !== principal.agent && !caller.reviewer) {
    throw new TollgateError(
      'POLICY_DENIED',
      "Only a reviewer (a person at a review surface whose agent holds the reviewer role) may list another agent's memory.",
    );
  }
  const requestedUser = request.user ?? '';
  if (requestedUser !== '' && requestedUser !== user) {
    throw new TollgateError('POLICY_DENIED', 'Memory of another user cannot be listed.', {
      details: [{ path: 'user', message: "not the caller's user" }],
    });
  }
  const users = requestedUser !== '' ? [requestedUser] : user === '' ? [''] : ['', user];
  return { tenant: principal.tenant, agent, user: { $in: users } };
}

/** The filter for everything the principal may use in recall (its own memory). */
export function useScope(principal: Principal): Document {
  const user = principal.user ?? '';
  return {
    tenant: principal.tenant,
    agent: principal.agent,
    user: { $in: user === '' ? [''] : ['', user] },
  };
}
