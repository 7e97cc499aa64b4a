export {
  CONSOLE_AGENTS,
  OPERATOR_ROLES,
  operatorFromClaims,
  parseRoleMap,
} from './auth/operator.js';
export type { Operator, OperatorRole } from './auth/operator.js';
export { CONTENT_SECURITY_POLICY, CSRF_HEADER, SESSION_COOKIE } from './http/security.js';
export { DEFAULT_CONSOLE_URL } from './config.js';
