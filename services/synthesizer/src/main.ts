import { createClient } from '@tollgate/contracts';
import { MemoryService } from '@tollgate/contracts/memory/v1';
import { bootService, serviceEndpoints } from '@tollgate/kit';
import { synthesizerConfig } from './config.js';
import { MemoryPreferences, noPreferences } from './preferences.js';
import { startSynthesizer } from './service.js';

await bootService({
  name: 'synthesizer',
  config: synthesizerConfig,
  grpcAddress: serviceEndpoints.synthesizer,
  mongo: false,
  async start({ nc, config, logger, grpcServer, lifecycle, verifier }) {
    let preferences = noPreferences;
    if (config.memoryGrpcAddr !== '') {
      const client = createClient(MemoryService, config.memoryGrpcAddr);
      lifecycle.add('memory client', () => Promise.resolve(client.close()));
      preferences = new MemoryPreferences({
        client,
        logger,
        timeoutMs: config.preferenceTimeoutMs,
        ttlMs: config.preferenceTtlMs,
      });
    }
    const running = await startSynthesizer({
      nc,
      logger,
      verifier,
      grpcServer,
      preferences,
      toolCacheSize: config.toolCacheSize,
      queue: config.queue,
      credentialNamespaces: config.credentialNamespaces,
    });
    lifecycle.add('synthesizer', () => running.stop());
  },
});
