import { randomBytes } from 'node:crypto';
import { DEV_ISSUER_FILE, bootService, ensureDevIssuer, serviceEndpoints } from '@tollgate/kit';
import { mcpConfig } from './config.js';
import { loadIdentity, loadIssuerKeys, splitList } from './settings.js';
import { startMcpService } from './service.js';

await bootService({
  name: 'mcp',
  config: mcpConfig,
  grpcAddress: serviceEndpoints.mcp,
  mongo: false,
  async start({ nc, config, logger, lifecycle, verifier: agentTokens }) {
    const issuerKeys =
      config.issuerKeyFile !== ''
        ? await loadIssuerKeys(config.issuerKeyFile)
        : await ensureDevIssuer(DEV_ISSUER_FILE);
    const identity = await loadIdentity(config.identityFile);
    let sessionKey = config.sessionKey;
    if (sessionKey === '') {
      sessionKey = randomBytes(32).toString('hex');
      logger.warn('no TOLLGATE_MCP_SESSION_KEY: sessions are valid on this instance only');
    }
    const [host, port] = splitAddress(config.httpAddr);
    const running = await startMcpService({
      nc,
      logger,
      agentTokens,
      identity,
      issuerKeys,
      callTokenTtlSeconds: config.callTokenTtlSeconds,
      listen: { host, port },
      ...(config.resourceUrl !== '' ? { resourceUrl: config.resourceUrl } : {}),
      edge: {
        allowedHosts: splitList(config.allowedHosts),
        allowedOrigins: splitList(config.allowedOrigins).length
          ? splitList(config.allowedOrigins)
          : ['localhost', '127.0.0.1', '[::1]'],
        corsOrigins: splitList(config.corsOrigins),
        trustedProxies: splitList(config.trustedProxies),
        maxBodyBytes: config.maxBodyBytes,
      },
      gateway: {
        pageSize: config.pageSize,
        listTtlMs: config.listCacheTtlMs,
        callTimeoutMs: config.callTimeoutMs,
        findTools: config.findTools,
      },
      rateLimitPerMinute: config.rateLimitPerMinute,
      sessionKey,
    });
    lifecycle.add('mcp http', () => running.stop());
  },
});

function splitAddress(address: string): [string, number] {
  const match = /^(.*):(\d+)$/.exec(address);
  if (match === null)
    throw new Error(`TOLLGATE_MCP_HTTP_ADDR: expected host:port, found ${JSON.stringify(address)}`);
  return [match[1]!.replace(/^\[|\]$/g, ''), Number(match[2])];
}
