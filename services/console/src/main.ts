import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { IssuerKeys } from '@tollgate/core';
import { bootService, ensureDevIssuer, serviceEndpoints } from '@tollgate/kit';
import type { Logger } from '@tollgate/kit';
import { parseRoleMap } from './auth/operator.js';
import { PrincipalTokens } from './auth/principals.js';
import { SessionStore } from './auth/sessions.js';
import { openIdProvider } from './auth/sign-in.js';
import { Backend } from './backend/backend.js';
import { consoleConfig } from './config.js';
import { EventFeed } from './events/feed.js';
import { consoleRoutes } from './routes.js';
import { createConsoleServer } from './http/server.js';
import { StaticFiles } from './http/static-files.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]|::1)$/;

await bootService({
  name: 'console',
  config: consoleConfig,
  grpcAddress: serviceEndpoints.console,
  async start({ nc, config, logger, lifecycle }) {
    const { host, port } = splitAddress(config.httpAddress);
    const dev = config.oidcIssuer === '';
    if (dev && config.devSignIn === 'loopback' && !LOOPBACK.test(host)) {
      throw new Error(
        `TOLLGATE_CONSOLE_OIDC_ISSUER is unset, so only the dev sign-in is available, which the console offers on loopback only (TOLLGATE_CONSOLE_ADDR=${config.httpAddress}; TOLLGATE_CONSOLE_DEV_SIGN_IN=any-address overrides)`,
      );
    }
    const publicUrl = config.publicUrl.replace(/\/+$/, '');
    const provider = dev
      ? undefined
      : await openIdProvider({
          issuer: config.oidcIssuer,
          clientId: config.oidcClientId,
          clientSecret: config.oidcClientSecret,
          scopes: config.oidcScopes,
          redirectUri: `${publicUrl}/auth/callback`,
          postLogoutRedirectUri: `${publicUrl}/signin`,
        });
    if (dev)
      logger.warn({}, 'no TOLLGATE_CONSOLE_OIDC_ISSUER: the console offers the local dev sign-in');
    const keys = await issuerKeys(config.issuerKeyFile, logger);
    const backend = new Backend({
      addresses: {
        registry: config.registryAddress,
        synthesizer: config.synthesizerAddress,
        policy: config.policyAddress,
        memory: config.memoryAddress,
        audit: config.auditAddress,
      },
      tokens: new PrincipalTokens(keys, config.environment),
      nc,
    });
    lifecycle.add('clients', async () => backend.close());
    const feed = new EventFeed({ nc, logger });
    await feed.start();
    lifecycle.add('events', () => feed.stop());
    const webRoot = config.webRoot || fileURLToPath(new URL('./web/', import.meta.url));
    const web = await StaticFiles.load(webRoot);
    const server = createConsoleServer({
      publicUrl,
      sessions: new SessionStore({
        ttlSeconds: config.sessionTtlSeconds,
        idleSeconds: config.sessionIdleSeconds,
      }),
      provider,
      mapping: {
        rolesClaim: config.rolesClaim,
        roleMap: parseRoleMap(config.roleMap),
        tenantsClaim: config.tenantsClaim,
        defaultTenant: config.tenant,
      },
      backend,
      routes: consoleRoutes(feed),
      web,
      logger,
      sessionTtlSeconds: config.sessionTtlSeconds,
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    lifecycle.add(
      'http',
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    logger.info(
      { url: publicUrl, listen: config.httpAddress, signIn: dev ? 'dev' : 'oidc' },
      'console serving',
    );
  },
});

function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  const port = Number(address.slice(at + 1));
  if (at <= 0 || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`TOLLGATE_CONSOLE_ADDR must be host:port, found "${address}"`);
  }
  return { host: address.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port };
}

async function issuerKeys(path: string, logger: Logger): Promise<IssuerKeys> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as IssuerKeys;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  logger.warn(
    { file: path },
    'no console issuer key: creating a dev issuer the services must trust',
  );
  return ensureDevIssuer(path);
}
