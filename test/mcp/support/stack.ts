/**
 * The MCP front end on a real stack: a private NATS with the executor and the synthesizer on
 * it, real Elasticsearch behind a counting proxy (so tests prove what reached it), a real
 * authorization server (oidc-provider), and the MCP service listening on HTTP. Orders live in
 * an index of the test's own, writable, so the approval story can write.
 */
import { Writable } from 'node:stream';
import { createLogger } from '@tollgate/kit';
import type { Logger } from '@tollgate/kit';
import { generateOrders, ORDERS_MAPPING, ordersResource } from '../../fixtures/orders.js';
import { uniqueName } from '../../support/infra.js';
import { ES_URL, startHarness } from '../../../services/executor/test/support/harness.js';
import type { Harness } from '../../../services/executor/test/support/harness.js';
import { startSynthesizer } from '../../../services/synthesizer/src/index.js';
import type { RunningSynthesizer } from '../../../services/synthesizer/src/index.js';
import { startMcpService } from '../../../services/mcp/src/index.js';
import type { IdentitySettings, RunningMcpService } from '../../../services/mcp/src/index.js';
import { startEsProxy } from '../../security/support/es-proxy.js';
import type { EsProxy } from '../../security/support/es-proxy.js';
import { CLIENTS, TOOLS_SCOPE, startAuthorizationServer } from './oidc.js';
import type { AuthorizationServer } from './oidc.js';

/** Ports of this suite (the MCP engineer's block). */
export const MCP_PORT = 23080;
export const AS_PORT = 23090;

export interface McpStack {
  h: Harness;
  proxy: EsProxy;
  as: AuthorizationServer;
  mcp: RunningMcpService;
  url: URL;
  index: string;
  logs: string[];
  /** A Tollgate agent token (machine clients may use them instead of OAuth). */
  agentToken(agent: string, options?: { tenant?: string; ttlSeconds?: number }): Promise<string>;
  stop(): Promise<void>;
}

/** Orders the story needs (12345 among them) in the test's own index. */
const STORY_ORDERS = generateOrders().filter((o) => Number(o.id) % 500 === 0 || o.id === '12345');

export interface StackOptions {
  /** MCP and authorization-server ports (default MCP_PORT, AS_PORT). */
  ports?: { mcp: number; as: number };
  rateLimitPerMinute?: number;
  maxBodyBytes?: number;
  pageSize?: number;
}

export async function startMcpStack(options: StackOptions = {}): Promise<McpStack> {
  const h = await startHarness({ noExecutor: true });
  const index = uniqueName('mcp_orders').toLowerCase();
  await h.es.indices.create({
    index,
    settings: { number_of_shards: 1, number_of_replicas: 0 },
    mappings: ORDERS_MAPPING as never,
  });
  await h.es.bulk({
    operations: STORY_ORDERS.flatMap((o) => [{ index: { _index: index, _id: o.id } }, o]),
    refresh: true,
  });
  const proxy = await startEsProxy(ES_URL);
  const descriptor = ordersResource({ endpoint: proxy.url, index, readonly: false });
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  h.running = await h.startExecutor();
  const { logger, lines } = captured();
  const synthesizer: RunningSynthesizer = await startSynthesizer({
    nc: h.nc,
    logger,
    verifier: h.verifier,
  });
  const as = await startAuthorizationServer(options.ports?.as ?? AS_PORT);
  const identity: IdentitySettings = {
    authorizationServers: [{ issuer: as.issuer, jwksUri: as.jwksUri, algorithms: ['ES256'] }],
    scopes: [TOOLS_SCOPE],
    rules: [
      rule(CLIENTS.support.clientId, 'team-a', 'support_bot'),
      rule(CLIENTS.clerk.clientId, 'team-a', 'clerk_bot'),
      rule(CLIENTS.otherTenant.clientId, 'team-b', 'support_bot'),
      {
        when: { client_id: CLIENTS.desktop.clientId },
        principal: { tenant: 'team-a', environment: 'prod', agent: 'clerk_bot', user: '{sub}' },
      },
    ],
  };
  const mcp = await startMcpService({
    nc: h.nc,
    logger,
    agentTokens: h.verifier,
    identity,
    issuerKeys: h.keys,
    callTokenTtlSeconds: 120,
    listen: { host: '127.0.0.1', port: options.ports?.mcp ?? MCP_PORT },
    edge: {
      allowedHosts: [],
      allowedOrigins: ['localhost', '127.0.0.1'],
      corsOrigins: [],
      trustedProxies: [],
      maxBodyBytes: options.maxBodyBytes ?? 1_048_576,
    },
    gateway: {
      pageSize: options.pageSize ?? 50,
      listTtlMs: 2_000,
      callTimeoutMs: 20_000,
      findTools: true,
    },
    rateLimitPerMinute: options.rateLimitPerMinute ?? 0,
    sessionKey: 'test-session-key',
  });
  return {
    h,
    proxy,
    as,
    mcp,
    url: mcp.url,
    index,
    logs: lines,
    agentToken: (agent, o = {}) => h.token(agent, o),
    async stop() {
      await mcp.stop();
      await as.close();
      await synthesizer.stop();
      await h.es.indices.delete({ index }, { ignore: [404] });
      await h.stop();
      await proxy.close();
    },
  };
}

function rule(clientId: string, tenant: string, agent: string): IdentitySettings['rules'][number] {
  return { when: { client_id: clientId }, principal: { tenant, environment: 'prod', agent } };
}

function captured(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'mcp-test',
    level: 'debug',
    destination: new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    }) as never,
  });
  return { logger, lines };
}
