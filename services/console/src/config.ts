import { cfg } from '@tollgate/kit';

/** Where people open the console when nothing else is configured. */
export const DEFAULT_CONSOLE_URL = 'http://localhost:7080';

/** The console's own settings, on top of the common ones. */
export const consoleConfig = {
  httpAddress: cfg.string(
    'TOLLGATE_CONSOLE_ADDR',
    'host:port the web console listens on',
    '127.0.0.1:7080',
  ),
  publicUrl: cfg.url(
    'TOLLGATE_CONSOLE_PUBLIC_URL',
    'the URL people open (origin of redirects and of the CSRF origin check)',
    ['http', 'https'],
    DEFAULT_CONSOLE_URL,
  ),
  oidcIssuer: cfg.string(
    'TOLLGATE_CONSOLE_OIDC_ISSUER',
    "the operators' OpenID Connect issuer URL; unset: the local dev sign-in (loopback only)",
    '',
  ),
  devSignIn: cfg.oneOf(
    'TOLLGATE_CONSOLE_DEV_SIGN_IN',
    'without an OIDC issuer the dev sign-in is offered on a loopback address only; `any-address` allows it elsewhere (a container whose port is published on loopback)',
    ['loopback', 'any-address'] as const,
    'loopback',
  ),
  oidcClientId: cfg.string('TOLLGATE_CONSOLE_OIDC_CLIENT_ID', 'OIDC client id', 'tollgate-console'),
  oidcClientSecret: cfg.secret(
    'TOLLGATE_CONSOLE_OIDC_CLIENT_SECRET',
    'OIDC client secret (empty: a public client, PKCE only)',
    '',
  ),
  oidcScopes: cfg.string(
    'TOLLGATE_CONSOLE_OIDC_SCOPES',
    'scopes asked for',
    'openid profile email',
  ),
  rolesClaim: cfg.string(
    'TOLLGATE_CONSOLE_ROLES_CLAIM',
    'ID token claim listing the operator roles (or groups mapped by TOLLGATE_CONSOLE_ROLE_MAP)',
    'tollgate_roles',
  ),
  roleMap: cfg.string(
    'TOLLGATE_CONSOLE_ROLE_MAP',
    'claim values mapped to console roles, `value=role,…` (roles: admin, approver, viewer); unset: the values are role names',
    '',
  ),
  tenantsClaim: cfg.string(
    'TOLLGATE_CONSOLE_TENANTS_CLAIM',
    'ID token claim listing the tenants an operator manages',
    'tollgate_tenants',
  ),
  tenant: cfg.string(
    'TOLLGATE_CONSOLE_TENANT',
    'the tenant of operators whose ID token names none',
    'team-a',
  ),
  environment: cfg.string(
    'TOLLGATE_CONSOLE_ENVIRONMENT',
    'the environment the console acts in',
    'prod',
  ),
  issuerKeyFile: cfg.string(
    'TOLLGATE_CONSOLE_ISSUER_KEY_FILE',
    'signing key (issuer JSON) of the principal tokens the console mints; its public key must be trusted by the services',
    '.tollgate/keys/issuer.json',
  ),
  sessionTtlSeconds: cfg.int(
    'TOLLGATE_CONSOLE_SESSION_TTL_SECONDS',
    'a sign-in lasts at most this long',
    8 * 3600,
    60,
    7 * 86400,
  ),
  sessionIdleSeconds: cfg.int(
    'TOLLGATE_CONSOLE_SESSION_IDLE_SECONDS',
    'a session unused this long ends',
    1800,
    60,
    86400,
  ),
  webRoot: cfg.string(
    'TOLLGATE_CONSOLE_WEB_ROOT',
    'folder of the built single-page app (default: the package’s dist/web)',
    '',
  ),
  registryAddress: cfg.string('TOLLGATE_REGISTRY_GRPC_ADDR', 'registry gRPC', '127.0.0.1:7061'),
  synthesizerAddress: cfg.string(
    'TOLLGATE_SYNTHESIZER_GRPC_ADDR',
    'synthesizer gRPC',
    '127.0.0.1:7062',
  ),
  policyAddress: cfg.string('TOLLGATE_POLICY_GRPC_ADDR', 'policy gRPC', '127.0.0.1:7063'),
  memoryAddress: cfg.string('TOLLGATE_MEMORY_GRPC_ADDR', 'memory gRPC', '127.0.0.1:7065'),
  auditAddress: cfg.string('TOLLGATE_AUDIT_GRPC_ADDR', 'audit gRPC', '127.0.0.1:7066'),
};
