import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { MongoClient } from 'mongodb';
import { createClient } from '@tollgate/contracts';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { MemoryService, PreferenceSource } from '@tollgate/contracts/memory/v1';
import { generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import {
  EventPublisher,
  EventTypes,
  encodeEnvelope,
  ensureEventStream,
  createLogger,
  envelope,
  openBucket,
} from '@tollgate/kit';
import { AuditIngest, AuditStore } from '@tollgate/service-audit';
import { startNatsServer } from '../../../test/support/nats-server.js';
import { eventually, infra, uniqueName } from './harness.js';
import { testBundle } from './live.js';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

describe('service - the memory process', () => {
  it('service - starts from its config, learns from audited call.completed over JetStream, serves gRPC and stops on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'memory-service-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const issuer = await generateIssuerKeys('memory-service-test');
    const issuersFile = join(dir, 'issuers.json');
    await writeFile(
      issuersFile,
      JSON.stringify([{ issuer: issuer.issuer, keys: [issuer.publicJwk] }]),
    );
    const dbUrl = `${infra.mongoUrl}/${uniqueName('memory_svc')}`;
    const durable = uniqueName('memory_svc');
    const bucket = uniqueName('memory_svc_bucket');
    const tenant = uniqueName('svc').replace(/_/g, '-');
    const nats = await startNatsServer();
    const nc = await nats.connect('memory-service-test');
    await ensureEventStream(nc);
    const policyBucket = uniqueName('memory_svc_bundles');
    const bundle = testBundle(tenant);
    await (await openBucket(nc, policyBucket)).put(tenant, JSON.stringify(bundle));
    cleanups.push(async () => {
      await nc.close();
      await nats.dispose();
      const mongo = new MongoClient(dbUrl);
      await mongo.db().dropDatabase();
      await mongo.close();
    });

    // The audit trail memory learns from: audit's ingest on the same bus and database.
    const auditDb = new MongoClient(dbUrl);
    const ingest = new AuditIngest({
      nc,
      store: new AuditStore(auditDb.db()),
      logger: createLogger({ service: 'audit-test', level: 'silent' }),
      settings: {
        durable: uniqueName('audit_svc'),
        batchSize: 100,
        lingerMs: 5,
        ackWaitMs: 30_000,
        maxAckPending: 1000,
        poisonDeliveries: 5,
        maxArgumentBytes: 8192,
      },
    });
    await ingest.start();
    cleanups.push(async () => {
      await ingest.stop();
      await auditDb.close();
    });

    const child = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        TOLLGATE_MEMORY_GRPC_ADDR: '127.0.0.1:0',
        TOLLGATE_MONGO_URL: dbUrl,
        ...nats.env,
        TOLLGATE_MEMORY_POLICY_BUCKET: policyBucket,
        // Its own durable and buckets: only the admin key may use those.
        TOLLGATE_NATS_CREDENTIALS_FILE: join(nats.credentialsDir, 'admin.nk'),
        TOLLGATE_TRUSTED_ISSUERS_FILE: issuersFile,
        TOLLGATE_MEMORY_DURABLE: durable,
        TOLLGATE_MEMORY_BUCKET: bucket,
        TOLLGATE_MEMORY_LEARN_FROM: 'new',
        TOLLGATE_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    const lines: Array<Record<string, unknown>> = [];
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const part of parts) lines.push(JSON.parse(part) as Record<string, unknown>);
    });
    const ready = await eventually(() => lines.find((l) => l['msg'] === 'ready'), 30_000);
    const address = String(ready['grpc']);
    // The bucket the call path reads exists once the service is ready.
    expect((await (await jetstreamManager(nc)).streams.info(`KV_${bucket}`)).config.name).toBe(
      `KV_${bucket}`,
    );

    const publisher = new EventPublisher(nc);
    for (const id of ['o-1', 'o-2', 'o-3']) {
      const event = envelope(EventTypes.callCompleted, tenant, {
        case: 'callCompleted',
        value: {
          callId: crypto.randomUUID(),
          principal: { tenant, agent: 'bot', user: 'alice', environment: 'prod' },
          tool: 'es_orders_search',
          resource: 'es_orders',
          arguments: { filters: [{ field: 'id', op: 'eq', value: id }] },
          status: CallStatus.OK,
        },
      });
      await publisher.publish(
        EventTypes.callCompleted,
        event.eventId,
        encodeEnvelope(event),
        tenant,
      );
    }
    const token = await issuePrincipalToken(issuer, {
      tenant,
      agent: 'bot',
      user: 'alice',
      environment: 'prod',
    });
    const client = createClient(MemoryService, address, {
      metadata: { authorization: `Bearer ${token}` },
    });
    try {
      const preference = await eventually(async () => {
        const { preferences } = await client.listPreferences({});
        return preferences.find((p) => p.key === 'frequent_resource:es_orders');
      }, 30_000);
      expect(preference).toMatchObject({
        source: PreferenceSource.DERIVED,
        text: 'Usually queries es_orders.',
      });
    } finally {
      client.close();
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(lines.filter((l) => l['msg'] === 'stopped').map((l) => l['component'])).toContain(
      'memory',
    );
  });
});
