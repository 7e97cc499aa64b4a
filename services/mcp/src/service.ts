/**
 * Assembles the MCP front end from its dependencies: tokens verified at the edge, principals'
 * tools from the synthesizer, calls through the executor, change events followed. `main.ts`
 * and the tests use this.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { McpRequestContext } from '@modelcontextprotocol/server';
import type { NatsConnection } from '@nats-io/transport-node';
import type { IssuerKeys, TokenVerifier } from '@tollgate/core';
import type { Logger } from '@tollgate/kit';
import { followToolChanges } from './changes.js';
import { McpGateway } from './gateway/gateway.js';
import type { GatewaySettings } from './gateway/gateway.js';
import { BusToolSource } from './gateway/tool-source.js';
import type { ToolSource } from './gateway/tool-source.js';
import { edgeFactsOf, edgeListener } from './http/edge.js';
import type { EdgeSettings } from './http/edge.js';
import { PrincipalRateLimiter } from './http/rate-limit.js';
import { SessionIds } from './http/sessions.js';
import { AccessTokenVerifier, callerOf } from './identity/access-tokens.js';
import { CallTokens } from './identity/call-tokens.js';
import type { IdentitySettings } from './identity/rules.js';
import { buildServer } from './mcp/server.js';

export interface McpServiceOptions {
  nc: NatsConnection;
  logger: Logger;
  /** Issuers of Tollgate agent tokens that clients may present. */
  agentTokens: TokenVerifier;
  identity: IdentitySettings;
  /** The gateway's own signing key for the tokens it calls with. */
  issuerKeys: IssuerKeys;
  callTokenTtlSeconds: number;
  /** Host and port to listen on (port 0: any). */
  listen: { host: string; port: number };
  /** The public MCP URL; default `http://<listen>/mcp` once listening. */
  resourceUrl?: string;
  edge: Omit<EdgeSettings, 'resource' | 'authorizationServers' | 'scopes'>;
  gateway: GatewaySettings;
  rateLimitPerMinute: number;
  sessionKey: string;
  /** Where tools come from (default: the bus). */
  source?: ToolSource;
}

export interface RunningMcpService {
  /** The MCP endpoint URL. */
  url: URL;
  gateway: McpGateway;
  stop(): Promise<void>;
}

export async function startMcpService(options: McpServiceOptions): Promise<RunningMcpService> {
  const { logger } = options;
  const tokens = new CallTokens(options.issuerKeys, options.callTokenTtlSeconds);
  const gateway = new McpGateway({
    source: options.source ?? new BusToolSource(options.nc),
    tokenFor: (principal, ip) => tokens.tokenFor(principal, ip),
    settings: options.gateway,
  });
  const factory = (ctx: McpRequestContext) => {
    const caller = callerOf(ctx.authInfo);
    const edge = edgeFactsOf(ctx.authInfo);
    if (caller === undefined || edge === undefined)
      throw new Error('unauthenticated request reached the MCP handler');
    return buildServer(
      gateway,
      {
        principal: caller.principal,
        ...(edge.sourceIp !== undefined ? { sourceIp: edge.sourceIp } : {}),
        sessionId: edge.sessionId,
        tasks: false,
      },
      { listTtlMs: options.gateway.listTtlMs },
    );
  };
  const handler = createMcpHandler(factory, {
    legacy: 'stateless',
    maxRequestBodySize: options.edge.maxBodyBytes,
    onerror: (err) => logger.debug({ err: { message: err.message } }, 'mcp request refused'),
  });
  const stopFollowing = followToolChanges(options.nc, () => {
    gateway.invalidate();
    handler.notify.toolsChanged();
  });

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listen.port, options.listen.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.listen.host.includes(':') ? `[${options.listen.host}]` : options.listen.host;
  const url = new URL(options.resourceUrl || `http://${host}:${port}/mcp`);
  const allowedHosts =
    options.edge.allowedHosts.length > 0
      ? options.edge.allowedHosts
      : [
          ...new Set([
            url.hostname.replace(/^\[|\]$/g, ''),
            url.hostname,
            'localhost',
            '127.0.0.1',
            '[::1]',
          ]),
        ];
  const verifier = new AccessTokenVerifier({
    resource: url,
    identity: options.identity,
    tollgate: options.agentTokens,
  });
  server.on(
    'request',
    edgeListener({
      settings: {
        ...options.edge,
        allowedHosts,
        resource: url,
        authorizationServers: options.identity.authorizationServers.map((s) => s.issuer),
        scopes: options.identity.scopes,
      },
      verifier,
      handler,
      sessions: new SessionIds(options.sessionKey),
      rateLimiter: new PrincipalRateLimiter(options.rateLimitPerMinute),
      logger,
    }),
  );
  logger.info({ url: url.href }, 'mcp endpoint listening');
  return {
    url,
    gateway,
    async stop() {
      stopFollowing();
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
