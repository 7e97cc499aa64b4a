import { OPERATOR_ROLES } from '../auth/operator.js';
import type { Operator, OperatorRole } from '../auth/operator.js';
import { badRequest } from './problem.js';

const USER = /^[A-Za-z0-9._@+-]{1,100}$/;
const TENANT = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * The operator a dev sign-in names (local machines only: the console refuses to offer it on a
 * non-loopback address). Every field is checked; roles must be console roles.
 */
export function devSignIn(body: Record<string, unknown>, defaultTenant: string): Operator {
  const user = typeof body.user === 'string' ? body.user.trim() : '';
  if (!USER.test(user)) {
    throw badRequest('Name yourself with letters, digits and . _ @ + - (at most 100).', [
      { path: 'user', message: 'not a user name', expected: '[A-Za-z0-9._@+-]{1,100}' },
    ]);
  }
  const roles = Array.isArray(body.roles) ? body.roles : [];
  const known = roles.filter((r): r is OperatorRole =>
    (OPERATOR_ROLES as readonly unknown[]).includes(r),
  );
  if (known.length === 0 || known.length !== roles.length) {
    throw badRequest(`Pick roles among ${OPERATOR_ROLES.join(', ')}.`, [
      {
        path: 'roles',
        message: 'not a list of console roles',
        expected: OPERATOR_ROLES.join(' | '),
      },
    ]);
  }
  const tenant =
    typeof body.tenant === 'string' && body.tenant !== '' ? body.tenant : defaultTenant;
  if (!TENANT.test(tenant)) {
    throw badRequest('Not a tenant name.', [{ path: 'tenant', message: 'not a tenant name' }]);
  }
  return {
    subject: `dev:${user}`,
    user,
    name: user,
    roles: [...new Set(known)],
    tenants: [tenant],
  };
}
