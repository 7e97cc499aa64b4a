import { readFile } from 'node:fs/promises';
import { fromSeed } from '@nats-io/jwt';
import { bootService, busAuthFromEnv, serviceEndpoints } from '@tollgate/kit';
import { serveCallout } from './api.js';
import { calloutConfig, defaultIssuerFile } from './config.js';

await bootService({
  name: 'auth-callout',
  config: calloutConfig,
  grpcAddress: serviceEndpoints['auth-callout'],
  async start({ nc, config, logger, lifecycle, verifier }) {
    const issuerFile =
      config.issuerFile || defaultIssuerFile(busAuthFromEnv('auth-callout').credentialsFile);
    const seed = (await readFile(issuerFile, 'utf8')).trim();
    if (!/^SA[A-Z2-7]{56}$/.test(seed))
      throw new Error(`${issuerFile} does not hold an account NKey seed (SA…)`);
    const sub = serveCallout(nc, {
      verifier,
      issuer: fromSeed(new TextEncoder().encode(seed)),
      account: config.account,
      maxTtlSeconds: config.maxTtlSeconds,
      logger,
    });
    lifecycle.add('callout', () => sub.drain());
  },
});
