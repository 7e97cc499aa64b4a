/**
 * The MCP front end's settings (on top of the common ones), from the environment.
 */
import { DEV_ISSUER_FILE, cfg } from '@tollgate/kit';

export const mcpConfig = {
  httpAddr: cfg.string(
    'TOLLGATE_MCP_HTTP_ADDR',
    'host:port the Streamable HTTP endpoint (/mcp) listens on',
    '127.0.0.1:7068',
  ),
  resourceUrl: cfg.url(
    'TOLLGATE_MCP_RESOURCE_URL',
    "this server's public MCP URL: the OAuth resource (token audience) and where the metadata points; unset: http://<TOLLGATE_MCP_HTTP_ADDR>/mcp",
    ['http', 'https'],
    '',
  ),
  identityFile: cfg.string(
    'TOLLGATE_MCP_IDENTITY_FILE',
    'JSON: authorization servers (issuer, JWKS), required scopes and the claim rules that map a token to a principal; unset: Tollgate agent tokens only',
    '',
  ),
  issuerKeyFile: cfg.string(
    'TOLLGATE_MCP_ISSUER_KEY_FILE',
    `the gateway's signing key (an issuer key file) for the short-lived tokens it calls the executor with; the executor and synthesizer must trust it; unset: the dev issuer in ${DEV_ISSUER_FILE}`,
    '',
  ),
  callTokenTtlSeconds: cfg.int(
    'TOLLGATE_MCP_CALL_TOKEN_TTL_SECONDS',
    'lifetime of the tokens the gateway mints per principal (s)',
    300,
    30,
    3_600,
  ),
  allowedHosts: cfg.string(
    'TOLLGATE_MCP_ALLOWED_HOSTS',
    'comma-separated Host names accepted (DNS-rebinding guard); unset: the resource URL host plus localhost names',
    '',
  ),
  allowedOrigins: cfg.string(
    'TOLLGATE_MCP_ALLOWED_ORIGINS',
    'comma-separated Origin host names browsers may call from; unset: localhost names only',
    '',
  ),
  corsOrigins: cfg.string(
    'TOLLGATE_MCP_CORS_ORIGINS',
    'comma-separated origins (scheme://host[:port]) answered with CORS headers; unset: no CORS',
    '',
  ),
  trustedProxies: cfg.string(
    'TOLLGATE_MCP_TRUSTED_PROXIES',
    'comma-separated proxy addresses whose X-Forwarded-For is believed for the caller IP; unset: the socket address only',
    '',
  ),
  maxBodyBytes: cfg.int(
    'TOLLGATE_MCP_MAX_BODY_BYTES',
    'largest request body accepted (bytes)',
    1_048_576,
    1_024,
    16_777_216,
  ),
  rateLimitPerMinute: cfg.int(
    'TOLLGATE_MCP_RATE_LIMIT_PER_MINUTE',
    'requests per principal per minute (token bucket; 0: unlimited)',
    600,
    0,
    1_000_000,
  ),
  pageSize: cfg.int('TOLLGATE_MCP_PAGE_SIZE', 'tools per tools/list page', 50, 1, 1_000),
  listCacheTtlMs: cfg.int(
    'TOLLGATE_MCP_LIST_TTL_MS',
    'how long a listing may be cached by the client (ttlMs on 2026-07-28) and here',
    30_000,
    0,
    3_600_000,
  ),
  callTimeoutMs: cfg.int(
    'TOLLGATE_MCP_CALL_TIMEOUT_MS',
    'how long a tools/call waits for the executor (ms)',
    60_000,
    1_000,
    600_000,
  ),
  sessionKey: cfg.secret(
    'TOLLGATE_MCP_SESSION_KEY',
    'key that signs MCP session ids (the same on every instance); unset: a random one per process',
    '',
  ),
  findTools: cfg.bool(
    'TOLLGATE_MCP_FIND_TOOLS',
    'offer tollgate_find_tools (the top-K tools for a task, by the synthesizer’s recall)',
    true,
  ),
};
