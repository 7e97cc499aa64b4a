import {
  OperatorRoles,
  bootService,
  ensureEventStream,
  openBucket,
  serviceEndpoints,
} from '@tollgate/kit';
import { readBundleRoles } from '@tollgate/policy';
import { registerAuditApi } from './api.js';
import { AuditTrail } from './audit.js';
import { auditConfig } from './config.js';
import { AuditIngest } from './ingest/ingest.js';
import { AuditStore } from './store.js';

await bootService({
  name: 'audit',
  config: auditConfig,
  grpcAddress: serviceEndpoints.audit,
  mongo: true,
  async start({ nc, mongo, config, logger, grpcServer, lifecycle, verifier }) {
    if (!mongo) throw new Error('audit needs MongoDB');
    const store = new AuditStore(mongo.db);
    await store.ensureIndexes();
    await ensureEventStream(nc);
    const roles = new OperatorRoles(await openBucket(nc, config.bundlesBucket), readBundleRoles);
    registerAuditApi(grpcServer, { trail: new AuditTrail({ store }), verifier, roles, logger });
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
