import {
  EventPublisher,
  bootService,
  ensureEventStream,
  openBucket,
  serviceEndpoints,
} from '@tollgate/kit';
import { BusAnnouncer } from './announce.js';
import { addMemoryService } from './api.js';
import { startCallLearning } from './learning/call-events.js';
import { memoryConfig } from './config.js';
import { AuditTrail } from './learning/audit-trail.js';
import { PolicyView } from './live/policy-view.js';
import { Memory } from './memory.js';
import { MemoryProjector } from './projection/projector.js';
import { openStore } from './store/collections.js';
import { startSweeper } from './sweeper.js';

await bootService({
  name: 'memory',
  config: memoryConfig,
  grpcAddress: serviceEndpoints.memory,
  mongo: true,
  async start({ nc, mongo, config, logger, grpcServer, lifecycle, verifier }) {
    if (mongo === undefined) throw new Error('memory needs MongoDB');
    await ensureEventStream(nc);
    const store = await openStore(mongo.db);
    const announcer = new BusAnnouncer({ publisher: new EventPublisher(nc), store, logger });
    const projection = new MemoryProjector({
      kv: await openBucket(nc, config.bucket),
      store,
      logger,
    });
    const live = await PolicyView.follow(await openBucket(nc, config.policyBucket), logger);
    const audit = new AuditTrail(mongo.db);
    const memory = new Memory({
      store,
      announcer,
      audit,
      settings: config,
      projection,
      live,
      logger,
    });
    addMemoryService(grpcServer, memory, verifier, logger);
    const learning = await startCallLearning({
      nc,
      durable: config.durable,
      learnFrom: config.learnFrom,
      learner: memory.learner,
      audit,
      auditWaitMs: config.auditWaitMs,
      logger,
    });
    const sweeper = startSweeper({
      sessions: memory.sessions,
      announcer,
      projection,
      logger,
      intervalMs: config.sweepIntervalMs,
    });
    lifecycle.add('memory', async () => {
      await sweeper.stop();
      await learning.stop();
      live.stop();
    });
  },
});
