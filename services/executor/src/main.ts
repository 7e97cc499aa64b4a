import { randomBytes } from 'node:crypto';
import { createConnectors } from '@tollgate/kinds';
import {
  announceCredentialNamespaces,
  announceEgressRules,
  bootService,
  createCredentialResolver,
  serviceEndpoints,
} from '@tollgate/kit';
import { executorConfig } from './config.js';
import { startExecutor } from './service.js';

await bootService({
  name: 'executor',
  config: executorConfig,
  grpcAddress: serviceEndpoints.executor,
  mongo: false,
  async start({ config, logger, nc, lifecycle, verifier }) {
    announceCredentialNamespaces(logger, config.credentialNamespaces);
    announceEgressRules(logger, config.egressRules);
    let cursorKey = config.cursorKey;
    if (cursorKey === '') {
      cursorKey = randomBytes(32).toString('base64url');
      logger.warn(
        'no TOLLGATE_CURSOR_KEY: using a random key, so cursors do not survive a restart and are not accepted by other instances',
      );
    }
    const connectors = createConnectors();
    const running = await startExecutor({
      nc,
      logger,
      verifier,
      connectors,
      credentials: createCredentialResolver(),
      credentialNamespaces: config.credentialNamespaces,
      egressRules: config.egressRules,
      approvalsDurable: config.approvalsDurable,
      settings: {
        cursorKey,
        defaultCallTimeoutMs: config.defaultCallTimeoutMs,
        maxCallTimeoutMs: config.maxCallTimeoutMs,
        acceptAfterMs: config.acceptAfterMs,
        staleMarginMs: config.staleMarginMs,
        maxResultBytes: config.maxResultBytes,
        approvalTtlMs: config.approvalTtlMs,
      },
    });
    lifecycle.add('executor', async () => {
      await running.stop();
      await connectors.close();
    });
  },
});
