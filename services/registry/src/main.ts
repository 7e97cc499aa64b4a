import { createConnectors } from '@tollgate/kinds';
import {
  announceCredentialNamespaces,
  announceEgressRules,
  bootService,
  createCredentialResolver,
  serviceEndpoints,
} from '@tollgate/kit';
import { registerRegistryApi } from './api.js';
import { registryConfig } from './config.js';
import { startRegistry } from './service.js';

await bootService({
  name: 'registry',
  config: registryConfig,
  grpcAddress: serviceEndpoints.registry,
  mongo: true,
  async start({ config, logger, nc, mongo, grpcServer, lifecycle, verifier }) {
    announceCredentialNamespaces(logger, config.credentialNamespaces);
    announceEgressRules(logger, config.egressRules);
    const connectors = createConnectors();
    const parts = await startRegistry({
      db: (mongo as NonNullable<typeof mongo>).db,
      nc,
      logger,
      connectors,
      credentials: createCredentialResolver(),
      credentialNamespaces: config.credentialNamespaces,
      egressRules: config.egressRules,
      draftTtlMs: config.draftTtlMs,
      draftRetentionMs: config.draftRetentionMs,
      draftSweepIntervalMs: config.sweepIntervalMs,
      reconcileIntervalMs: config.reconcileIntervalMs,
    });
    lifecycle.add('registry', async () => {
      await parts.stop();
      await connectors.close();
    });
    registerRegistryApi(grpcServer, {
      registry: parts.registry,
      drafts: parts.drafts,
      verifier,
      roles: parts.roles,
      kinds: connectors.types(),
      logger,
    });
  },
});
