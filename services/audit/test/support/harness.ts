import { Writable } from 'node:stream';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectMongo, createLogger, ensureEventStream } from '@tollgate/kit';
import type { Logger, MongoHandle } from '@tollgate/kit';
import { AuditTrail } from '../../src/audit.js';
import { AuditIngest } from '../../src/ingest/ingest.js';
import type { IngestSettings } from '../../src/ingest/ingest.js';
import { AuditStore } from '../../src/store.js';
import { ownNatsServer, uniqueName } from './servers.js';
import type { OwnedNatsServer } from './servers.js';

export const sharedMongoUrl = process.env.TOLLGATE_MONGO_URL ?? 'mongodb://127.0.0.1:27017';

/** JSON log lines a test can read back. */
export function capturedLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ service: 'audit', level: 'info', destination }), lines };
}

export const testSettings = (durable: string): IngestSettings => ({
  durable,
  batchSize: 200,
  lingerMs: 10,
  ackWaitMs: 10_000,
  maxAckPending: 1_000,
  poisonDeliveries: 10,
  maxArgumentBytes: 8_192,
});

/**
 * An audit ingest and read side running in this process against a nats-server of the test's
 * own (so the stream holds only this test's events) and a fresh database on the shared Mongo.
 */
export interface Harness {
  nats: OwnedNatsServer;
  nc: NatsConnection;
  mongo: MongoHandle;
  store: AuditStore;
  trail: AuditTrail;
  ingest: AuditIngest;
  lines: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startHarness(
  options: { mongoUrl?: string; settings?: Partial<IngestSettings> } = {},
): Promise<Harness> {
  const nats = await ownNatsServer();
  const nc = await nats.connect('audit-test');
  await ensureEventStream(nc);
  const mongo = await connectMongo(
    options.mongoUrl ?? `${sharedMongoUrl}/${uniqueName('audit_test')}`,
  );
  const store = new AuditStore(mongo.db);
  await store.ensureIndexes();
  const { logger, lines } = capturedLogger();
  const ingest = new AuditIngest({
    nc,
    store,
    logger,
    settings: testSettings(uniqueName('audit')),
  });
  await ingest.start();
  return {
    nats,
    nc,
    mongo,
    store,
    trail: new AuditTrail({ store }),
    ingest,
    lines,
    async close() {
      await ingest.stop();
      await nc.close();
      await mongo.db.dropDatabase().catch(() => {});
      await mongo.close();
      await nats.dispose();
    },
  };
}
