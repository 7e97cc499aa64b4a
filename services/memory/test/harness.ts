/**
 * A memory service for integration tests: real MongoDB (a database of its own), a nats-server
 * of its own with JetStream, a real gRPC server on a free port, principal tokens from a
 * throwaway issuer written to a temp file, as the service loads it, and the tenant's policy
 * bundle (see live.ts) published into the bundles bucket memory checks facts and reviewers
 * against. The audit service's ingest runs on the same bus and database, so the calls a test
 * publishes are in the audit trail memory learns from (unless the test says otherwise).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@grpc/grpc-js';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import type { EventEnvelope, MemoryWritten } from '@tollgate/contracts/events/v1';
import { MemoryService } from '@tollgate/contracts/memory/v1';
import { CallStatus } from '@tollgate/contracts/call/v1';
import type { PolicyBundle } from '@tollgate/policy';
import { generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import type { IssuerKeys, Principal } from '@tollgate/core';
import {
  EVENTS_STREAM,
  EventPublisher,
  EventTypes,
  connectMongo,
  envelope,
  createLogger,
  decodeEnvelope,
  encodeEnvelope,
  ensureEventStream,
  listenGrpc,
  loadTokenVerifier,
  openBucket,
  subjects,
} from '@tollgate/kit';
import type { GrpcServerHandle, KV, MongoHandle } from '@tollgate/kit';
import { AuditIngest, AuditStore } from '@tollgate/service-audit';
import { BusAnnouncer } from '../src/announce.js';
import { AuditTrail } from '../src/learning/audit-trail.js';
import { addMemoryService } from '../src/api.js';
import { startCallLearning } from '../src/learning/call-events.js';
import type { CallHandling, CallLearning } from '../src/learning/call-events.js';
import type { Learner } from '../src/learning/learner.js';
import { DEFAULT_SETTINGS } from '../src/config.js';
import type { MemorySettings } from '../src/config.js';
import { Memory } from '../src/memory.js';
import { MemoryProjector } from '../src/projection/projector.js';
import { openStore } from '../src/store/collections.js';
import type { MemoryStore } from '../src/store/collections.js';
import { PolicyView } from '../src/live/policy-view.js';
import { startNatsServer } from '../../../test/support/nats-server.js';
import type { NatsServer } from '../../../test/support/nats-server.js';
import type { JsonObject } from '../src/types.js';
import { testBundle } from './live.js';

export const infra = {
  mongoUrl: process.env.TOLLGATE_MONGO_URL ?? 'mongodb://127.0.0.1:27017',
};

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Polls `check` until it returns a value (not undefined) or the time is up. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `not met within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A completed call as a test describes it; see `completedCall`. */
export interface CallFacts {
  agent: string;
  user?: string;
  sessionId?: string;
  tool: string;
  resource: string;
  args: JsonObject;
  callId?: string;
  status?: CallStatus;
}

/** The `call.completed` event the executor publishes for `call` of `tenant`. */
export function completedCall(tenant: string, call: CallFacts): EventEnvelope {
  return envelope(EventTypes.callCompleted, tenant, {
    case: 'callCompleted',
    value: {
      callId: call.callId ?? crypto.randomUUID(),
      sessionId: call.sessionId ?? '',
      principal: { tenant, agent: call.agent, user: call.user ?? '', environment: 'prod' },
      tool: call.tool,
      resource: call.resource,
      arguments: call.args,
      status: call.status ?? CallStatus.OK,
    },
  });
}

export interface MemoryHarness {
  tenant: string;
  memory: Memory;
  store: MemoryStore;
  nc: NatsConnection;
  /** The harness's own nats-server. */
  nats: NatsServer;
  mongo: MongoHandle;
  address: string;
  issuer: IssuerKeys;
  issuersFile: string;
  /** memory.written events of this harness's tenants, in arrival order. */
  written: MemoryWritten[];
  /** The memory bucket of this harness (a bucket of its own, removed on close). */
  kv: KV;
  projection: MemoryProjector;
  /** The live policy state memory checks against. */
  live: PolicyView;
  /** Publishes a tenant's bundle (default: the test bundle of the harness's tenant) and waits for memory to hold it. */
  putBundle(bundle?: PolicyBundle): Promise<void>;
  /** A client authenticated as `principal` (tenant defaults to the harness's). */
  client(
    principal: Partial<Principal> & { agent: string },
  ): Promise<RpcClient<typeof MemoryService>>;
  token(principal: Partial<Principal> & { agent: string }): Promise<string>;
  /** The audit trail memory checks calls against. */
  audit: AuditTrail;
  /** Audit's record store of the harness's database (tests read and tamper with it). */
  auditStore: AuditStore;
  /** What became of each call.completed message, in order. */
  handled: CallHandling[];
  /**
   * Starts learning from call.completed with a durable of its own, from new events (default)
   * or every one on the harness's stream.
   */
  startLearning(options?: {
    from?: 'all' | 'new';
    /** A durable shared with another learner (default: one of its own). */
    durable?: string;
    /** Another instance's learner (`anotherInstance`); default: the harness's own. */
    learner?: Learner;
    /** Told what became of each message instead of `handled`. */
    onHandled?: (handling: CallHandling) => void;
  }): Promise<CallLearning>;
  /**
   * A second memory service on the same database and bus: its own Mongo connection, store,
   * announcer, projector and audit reader, as another process would have.
   */
  anotherInstance(): Promise<Memory>;
  /** Publishes a call.completed event as the executor would (audit records it). */
  publishCall(event: EventEnvelope): Promise<void>;
  /** Stops audit's ingest: what is published from then on is not in the audit trail. */
  stopAudit(): Promise<void>;
  close(): Promise<void>;
}

export async function startMemory(
  settings: Partial<MemorySettings> = {},
  clock?: () => Date,
): Promise<MemoryHarness> {
  const tenant = uniqueName('t').replace(/_/g, '-').toLowerCase();
  const dbName = uniqueName('memory_test');
  const mongo = await connectMongo(`${infra.mongoUrl}/${dbName}`);
  const nats = await startNatsServer();
  const nc = await nats.connect('memory-test');
  await ensureEventStream(nc);
  const logger = createLogger({ service: 'memory-test', level: 'silent' });
  const bundles = await openBucket(nc, 'memory_test_bundles');
  const live = await PolicyView.follow(bundles, logger);
  const putBundle = async (bundle: PolicyBundle = testBundle(tenant)): Promise<void> => {
    await bundles.put(bundle.tenant, JSON.stringify(bundle));
    await eventually(() => (live.bundleHash(bundle.tenant) === bundle.hash ? true : undefined));
  };
  await putBundle();
  const store = await openStore(mongo.db);
  const auditStore = new AuditStore(mongo.db);
  await auditStore.ensureIndexes();
  let ingest: AuditIngest | undefined = new AuditIngest({
    nc,
    store: auditStore,
    logger,
    settings: {
      durable: uniqueName('audit_test'),
      batchSize: 100,
      lingerMs: 5,
      ackWaitMs: 30_000,
      maxAckPending: 1000,
      poisonDeliveries: 5,
      maxArgumentBytes: 8192,
    },
  });
  await ingest.start();
  const audit = new AuditTrail(mongo.db);
  const fullSettings = { ...DEFAULT_SETTINGS, auditWaitMs: 3_000, ...settings };
  const handled: CallHandling[] = [];
  const announcer = new BusAnnouncer({ publisher: new EventPublisher(nc), store, logger });
  const kv = await openBucket(nc, uniqueName('memory_test_bucket'));
  const projection = new MemoryProjector({ kv, store, logger });
  const memory = new Memory({
    store,
    announcer,
    projection,
    live,
    audit,
    settings: fullSettings,
    ...(clock ? { clock } : {}),
  });
  const dir = await mkdtemp(join(tmpdir(), 'memory-issuer-'));
  const issuer = await generateIssuerKeys('memory-test');
  const issuersFile = join(dir, 'issuer.json');
  await writeFile(issuersFile, JSON.stringify(issuer), { mode: 0o600 });
  const verifier = await loadTokenVerifier(issuersFile);
  const server = new Server();
  addMemoryService(server, memory, verifier, logger);
  const grpc: GrpcServerHandle = await listenGrpc(server, '127.0.0.1:0', 'test');
  const address = `127.0.0.1:${grpc.port}`;
  const written: MemoryWritten[] = [];
  const sub: Subscription = nc.subscribe(subjects.eventsOf(EventTypes.memoryWritten));
  void (async () => {
    for await (const msg of sub) {
      const event = decodeEnvelope(msg.data);
      if (event.tenant.startsWith(tenant) && event.payload.case === 'memoryWritten')
        written.push(event.payload.value);
    }
  })();
  const clients: Array<RpcClient<typeof MemoryService>> = [];
  const learnings: Array<{ learning: CallLearning; durable: string }> = [];
  const others: MongoHandle[] = [];
  const token = (p: Partial<Principal> & { agent: string }) =>
    issuePrincipalToken(issuer, { tenant, environment: 'prod', ...p });
  return {
    tenant,
    memory,
    store,
    nc,
    mongo,
    address,
    issuer,
    issuersFile,
    written,
    kv,
    projection,
    live,
    putBundle,
    nats,
    audit,
    auditStore,
    handled,
    token,
    async client(principal) {
      const client = createClient(MemoryService, address, {
        metadata: { authorization: `Bearer ${await token(principal)}` },
        defaultDeadlineMs: 20_000,
      });
      clients.push(client);
      return client;
    },
    async startLearning(options = {}) {
      const durable = options.durable ?? uniqueName('memory_test');
      const learning = await startCallLearning({
        nc,
        durable,
        learnFrom: options.from ?? 'new',
        learner: options.learner ?? memory.learner,
        audit,
        auditWaitMs: fullSettings.auditWaitMs,
        logger,
        onHandled: options.onHandled ?? ((handling) => handled.push(handling)),
      });
      learnings.push({ learning, durable });
      return learning;
    },
    async anotherInstance() {
      const other = await connectMongo(`${infra.mongoUrl}/${dbName}`);
      others.push(other);
      const otherStore = await openStore(other.db);
      return new Memory({
        store: otherStore,
        announcer: new BusAnnouncer({
          publisher: new EventPublisher(nc),
          store: otherStore,
          logger,
        }),
        projection: new MemoryProjector({ kv, store: otherStore, logger }),
        live,
        audit: new AuditTrail(other.db),
        settings: fullSettings,
        ...(clock ? { clock } : {}),
      });
    },
    async publishCall(event) {
      await new EventPublisher(nc).publish(
        EventTypes.callCompleted,
        event.eventId,
        encodeEnvelope(event),
        event.tenant,
      );
    },
    async stopAudit() {
      await ingest?.stop();
      ingest = undefined;
    },
    async close() {
      for (const client of clients) client.close();
      const jsm = await jetstreamManager(nc);
      for (const { learning, durable } of learnings) {
        await learning.stop();
        await jsm.consumers.delete(EVENTS_STREAM, durable).catch(() => false);
      }
      await grpc.stop();
      await ingest?.stop();
      for (const other of others) await other.close();
      sub.unsubscribe();
      live.stop();
      await kv.destroy();
      await nc.drain();
      await nats.dispose();
      await mongo.db.dropDatabase();
      await mongo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
