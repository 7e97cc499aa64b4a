/**
 * Which part of memory a request reads or writes, from the verified principal and the
 * optional `user` / `agent` request fields.
 */
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import type { Document } from 'mongodb';
import type { Owner } from '../types.js';

const AGENT = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** The owner a write goes to: agent-wide (`user` empty) or the caller's own user. */
export function writeOwner(principal: Principal, requestedUser: string): Owner {
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
  return { tenant: principal.tenant, agent: principal.agent, user: requestedUser };
}

/**
 * The filter for a listing: the caller's agent (its agent-wide items and its user's), or — for
 * a person reviewing — another agent's agent-wide items and the person's own there.
 */
export function listScope(
  principal: Principal,
  request: { agent: string; user?: string },
): Document {
  const user = principal.user ?? '';
  const agent = request.agent === '' ? principal.agent : request.agent;
  if (!AGENT.test(agent)) {
    throw new TollgateError('INVALID_ARGUMENT', 'agent is not an agent name.', {
      details: [
        { path: 'agent', message: 'not an agent name', expected: '[a-z0-9][a-z0-9_-]{0,62}' },
      ],
    });
  }
  if (agent !== principal.agent && user === '') {
    throw new TollgateError(
      'POLICY_DENIED',
      "Only a person (a token with a user claim) may list another agent's memory.",
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
