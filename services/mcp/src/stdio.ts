/**
 * `tollgate mcp --as AGENT`: one principal's tools over MCP stdio, for desktop clients that
 * launch a command. The launching CLI names the principal and hands over the issuer key it
 * mints that principal's short-lived tokens with; stdout carries only the protocol, logs go
 * to stderr.
 */
import pino from 'pino';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Server } from '@modelcontextprotocol/server';
import {
  busAuthFromEnv,
  cfg,
  commonConfig,
  connectBus,
  createLogger,
  loadConfig,
  serviceInboxPrefix,
} from '@tollgate/kit';
import { followToolChanges } from './changes.js';
import { McpGateway } from './gateway/gateway.js';
import { BusToolSource } from './gateway/tool-source.js';
import { CallTokens } from './identity/call-tokens.js';
import { buildServer } from './mcp/server.js';
import { loadIssuerKeys } from './settings.js';
import { mcpConfig } from './config.js';

const stdioConfig = {
  ...commonConfig,
  agent: cfg.string('TOLLGATE_MCP_AGENT', 'the agent whose tools are served'),
  tenant: cfg.string('TOLLGATE_MCP_TENANT', 'its tenant', 'team-a'),
  environment: cfg.string('TOLLGATE_MCP_ENVIRONMENT', 'its environment', 'prod'),
  user: cfg.string('TOLLGATE_MCP_USER', 'the person it acts for (optional)', ''),
  issuerKeyFile: cfg.string(
    'TOLLGATE_MCP_ISSUER_KEY_FILE',
    'issuer key the principal tokens are minted with',
  ),
  callTokenTtlSeconds: mcpConfig.callTokenTtlSeconds,
  pageSize: mcpConfig.pageSize,
  callTimeoutMs: mcpConfig.callTimeoutMs,
  findTools: mcpConfig.findTools,
};

const config = loadConfig('mcp-stdio', stdioConfig);
const logger = createLogger({
  service: 'mcp-stdio',
  level: config.logLevel,
  destination: pino.destination(2),
});
const nc = await connectBus({
  url: config.natsUrl,
  name: `mcp-stdio-${config.agent}`,
  logger,
  auth: busAuthFromEnv('mcp'),
  inboxPrefix: serviceInboxPrefix('mcp'),
});
const tokens = new CallTokens(
  await loadIssuerKeys(config.issuerKeyFile),
  config.callTokenTtlSeconds,
);
const gateway = new McpGateway({
  source: new BusToolSource(nc),
  tokenFor: (principal) => tokens.tokenFor(principal, undefined),
  settings: {
    pageSize: config.pageSize,
    listTtlMs: 5_000,
    callTimeoutMs: config.callTimeoutMs,
    findTools: config.findTools,
  },
});
const principal = {
  tenant: config.tenant,
  agent: config.agent,
  environment: config.environment,
  ...(config.user ? { user: config.user } : {}),
};
const sessionId = `mcp-stdio-${crypto.randomUUID()}`;
const servers = new Set<Server>();
const handle = serveStdio(
  () => {
    const server = buildServer(
      gateway,
      { principal, sessionId, tasks: false },
      { listTtlMs: 5_000 },
    );
    servers.add(server);
    return server;
  },
  {
    onerror: (err) => logger.debug({ err: { message: err.message } }, 'mcp stdio message refused'),
  },
);
const stopFollowing = followToolChanges(nc, () => {
  gateway.invalidate();
  for (const server of servers) server.sendToolListChanged().catch(() => undefined);
});
logger.info({ agent: config.agent, tenant: config.tenant, sessionId }, 'serving MCP on stdio');

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  stopFollowing();
  await handle.close().catch(() => undefined);
  await nc.drain().catch(() => undefined);
  logger.flush();
  process.exit(0);
};
process.stdin.once('end', () => void stop());
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
