import {
  bootService,
  ensureDevIssuer,
  ensureEventStream,
  loadTokenVerifier,
  serviceEndpoints,
} from '@tollgate/kit';
import { registerAuditApi } from './api.js';
import { AuditTrail } from './audit.js';
import { DEV_ISSUER_FILE, auditConfig } from './config.js';
import { AuditIngest } from './ingest/ingest.js';
import { AuditStore } from './store.js';

await bootService({
  name: 'audit',
  config: auditConfig,
  grpcAddress: serviceEndpoints.audit,
  mongo: true,
  async start({ nc, mongo, config, logger, grpcServer, lifecycle }) {
    if (!mongo) throw new Error('audit needs MongoDB');
    let issuers = config.trustedIssuersFile;
    if (issuers === '') {
      issuers = DEV_ISSUER_FILE;
      await ensureDevIssuer(issuers);
      logger.warn({ file: issuers }, 'no TOLLGATE_TRUSTED_ISSUERS_FILE: trusting the dev issuer');
    }
    const verifier = await loadTokenVerifier(issuers);
    const store = new AuditStore(mongo.db);
    await store.ensureIndexes();
    await ensureEventStream(nc);
    registerAuditApi(grpcServer, { trail: new AuditTrail({ store }), verifier, logger });
    const ingest = new AuditIngest({
      nc,
      store,
      logger,
      settings: {
        durable: config.durable,
        batchSize: config.batchSize,
        lingerMs: config.batchLingerMs,
        ackWaitMs: config.ackWaitMs,
        maxAckPending: config.maxAckPending,
        poisonDeliveries: config.poisonDeliveries,
        maxArgumentBytes: config.maxArgumentBytes,
      },
    });
    await ingest.start();
    lifecycle.add('ingest', () => ingest.stop());
  },
});
