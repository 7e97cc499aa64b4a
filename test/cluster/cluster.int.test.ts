import { writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from '@bufbuild/protobuf';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { VerifyRequestSchema } from '@tollgate/contracts/audit/v1';
import { ApprovalStatus, PolicyService } from '@tollgate/contracts/policy/v1';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import { issuePrincipalToken } from '@tollgate/core';
import {
  EVENTS_STREAM,
  EventTypes,
  buckets,
  decodeEnvelope,
  openBucket,
  resourceKey,
  subjects,
} from '@tollgate/kit';
import { RetryableError, TollgateClient } from '@tollgate/sdk';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collections } from '../../services/audit/src/store.js';
import { callCompleted } from '../../services/audit/test/support/events.js';
import { publishAll } from '../../services/audit/test/support/publish.js';
import {
  auditClient,
  startAuditProcess,
  testIssuer,
} from '../../services/audit/test/support/service.js';
import type { AuditProcess } from '../../services/audit/test/support/service.js';
import {
  ENV,
  ES_URL,
  ORDERS_INDEX,
  TENANT,
  startHarness,
} from '../../services/executor/test/support/harness.js';
import type { Harness } from '../../services/executor/test/support/harness.js';
import type { RunningExecutor } from '../../services/executor/src/index.js';
import { agentDescriptor } from '../../services/policy/test/harness.js';
import {
  ORDERS_MAPPING,
  ORDER_12345,
  ordersResource,
  ordersTool,
  seedOrders,
} from '../fixtures/orders.js';
import { startService } from '../support/process.js';
import type { RunningService } from '../support/process.js';
import { startAuthCallout } from '../support/bus.js';
import { eventually, infra, uniqueName } from '../support/infra.js';
import { startNatsCluster } from '../support/nats-cluster.js';
import type { NatsCluster } from '../support/nats-cluster.js';
import { declareAgents } from '../support/roles.js';
import type { TollgateError } from '@tollgate/core';
import {
  resourceDescriptor,
  startHarness as startRegistryHarness,
  uniqueTenant,
} from '../../services/registry/test/harness.js';

// Tollgate on a 3-node NATS cluster (deploy/local cluster mode), every stream and bucket at 3
// replicas, two instances of the services under test. Ports: 30200-30222 (the cluster).

// The in-process executors open their buckets and stream from this process's environment.
process.env['TOLLGATE_NATS_REPLICAS'] = '3';

let cluster: NatsCluster;
let h: Harness;
let nc: NatsConnection;
let issuersFile: string;
let callout: Awaited<ReturnType<typeof startAuthCallout>>;
/** The second executor of the queue group (the harness's own is `h.running`). */
let second: RunningExecutor;
let orders: { descriptor: ReturnType<typeof ordersResource>; version: number };

const search = ordersTool('search');
const byId = ORDER_12345;

beforeAll(async () => {
  cluster = await startNatsCluster();
  // Two executors in one queue group, each on its own connection to the cluster.
  h = await startHarness({ nats: cluster });
  second = await h.startExecutor();
  nc = h.nc;
  await seedOrders(h.es, ORDERS_INDEX);
  orders = {
    descriptor: ordersResource({ endpoint: ES_URL, index: ORDERS_INDEX, timeoutMs: 8_000 }),
    version: 1,
  };
  await h.publishResource(orders.descriptor, orders.version);
  await h.publishBundle([orders], 1);
  issuersFile = join(tmpdir(), `cluster-issuer-${process.pid}.json`);
  await writeFile(issuersFile, JSON.stringify(h.keys), { mode: 0o600 });
  callout = await startAuthCallout(cluster.url, cluster.credentialsDir, issuersFile);
}, 180_000);

afterAll(async () => {
  await callout?.stop();
  await h?.stop();
  await cluster?.dispose();
  if (issuersFile) await rm(issuersFile, { force: true });
});

/** Drops an audit test's database and closes it and its issuer. */
async function dropAndClose(mongo: MongoClient, issuer: { dispose(): Promise<void> }) {
  await mongo
    .db()
    .dropDatabase()
    .catch(() => undefined);
  await mongo.close();
  await issuer.dispose();
}

describe('cluster - 3 NATS nodes, two of each service', () => {
  it('cluster - every stream and bucket the services created keeps 3 replicas, one per node', async () => {
    const jsm = await jetstreamManager(nc);
    const streams = await jsm.streams.list().next();
    const names = streams.map((s) => s.config.name);
    expect(names).toEqual(
      expect.arrayContaining([
        EVENTS_STREAM,
        'KV_tollgate_resources',
        'KV_tollgate_policy_bundles',
        'KV_tollgate_idempotency',
        'KV_tollgate_call_results',
      ]),
    );
    for (const s of streams) {
      expect({ name: s.config.name, replicas: s.config.num_replicas }).toEqual({
        name: s.config.name,
        replicas: 3,
      });
      // A leader and two current followers: the copies really are on three servers.
      const servers = [s.cluster?.leader, ...(s.cluster?.replicas ?? []).map((r) => r.name)];
      expect(new Set(servers)).toEqual(
        new Set(['tollgate-local-1', 'tollgate-local-2', 'tollgate-local-3']),
      );
    }
  });

  it('cluster - two audit ingesters on one durable consumer store every event exactly once and the chain verifies', async () => {
    const issuer = await testIssuer();
    const dbUrl = `${infra.mongoUrl}/${uniqueName('cluster_audit')}`;
    const mongo = new MongoClient(dbUrl);
    const records = mongo.db().collection(collections.records);
    const env = {
      ...cluster.env,
      TOLLGATE_MONGO_URL: dbUrl,
      TOLLGATE_TRUSTED_ISSUERS_FILE: issuer.file,
    };
    // A tenant name: lowercase letters, digits and hyphens.
    const tenant = `ingest-${Date.now().toString(36)}`;
    const ingesters: AuditProcess[] = [];
    try {
      ingesters.push(await startAuditProcess(env), await startAuditProcess(env));
      // Both pull from the one durable consumer (each keeps a pull request waiting).
      await eventually(
        async () => {
          const info = await (await jetstreamManager(nc)).consumers.info(EVENTS_STREAM, 'audit');
          return info.num_waiting >= 2 ? true : undefined;
        },
        30_000,
        100,
      );
      const events = Array.from({ length: 3_000 }, (_, i) =>
        callCompleted({ tenant, callId: `c-${i}`, sessionId: `s-${i % 40}` }),
      );
      await publishAll(nc, events);
      await eventually(
        async () => ((await records.countDocuments({ tenant })) >= 3_000 ? true : undefined),
        180_000,
        250,
      );
      await eventually(
        async () => {
          const info = await (await jetstreamManager(nc)).consumers.info(EVENTS_STREAM, 'audit');
          return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
        },
        60_000,
        250,
      );
      expect(await records.countDocuments({ tenant })).toBe(3_000);
      expect((await records.distinct('call_id', { tenant })).length).toBe(3_000);
      await declareAgents(await openBucket(nc, buckets.policyBundles), tenant, {
        auditor: ['viewer'],
      });
      for (const ingester of ingesters) {
        const client = auditClient(ingester.grpc, await issuer.token(tenant));
        expect(await client.verify(create(VerifyRequestSchema, {}))).toMatchObject({
          ok: true,
          checked: 3_000n,
          firstBrokenSequence: 0n,
        });
        client.close();
      }
    } finally {
      for (const ingester of ingesters) {
        ingester.child.kill('SIGKILL');
        await ingester.exited;
      }
      await dropAndClose(mongo, issuer);
    }
  }, 400_000);

  it('cluster - the node leading the audit consumer killed: the ingester, connected to another node, pulls again and stores new events within seconds, not after its pulls expire', async () => {
    const issuer = await testIssuer();
    const mongo = new MongoClient(`${infra.mongoUrl}/${uniqueName('cluster_pull')}`);
    const records = mongo.db().collection(collections.records);
    // The bus lets audit use its own durable only.
    const durable = 'audit';
    const tenant = `pull-${Date.now().toString(36)}`;
    const jsm = await jetstreamManager(nc);
    const leaderOf = async () =>
      (await jsm.consumers.info(EVENTS_STREAM, durable)).cluster?.leader ?? '';
    // Node 1 is the ingester's only server, so killing another node never disconnects it.
    const ingester = await startAuditProcess({
      ...cluster.env,
      TOLLGATE_NATS_URL: `nats://127.0.0.1:${cluster.port}`,
      TOLLGATE_MONGO_URL: `${infra.mongoUrl}/${mongo.db().databaseName}`,
      TOLLGATE_TRUSTED_ISSUERS_FILE: issuer.file,
    });
    let killed = 0;
    try {
      await eventually(async () => ((await leaderOf()) !== '' ? true : undefined), 30_000, 100);
      // The consumer's leader must sit on another node: ask it to step down until it does.
      for (let i = 0; (await leaderOf()) === 'tollgate-local-1'; i++) {
        if (i > 10) throw new Error('the consumer kept its leader on node 1');
        await nc.request(`$JS.API.CONSUMER.LEADER.STEPDOWN.${EVENTS_STREAM}.${durable}`);
        await new Promise((r) => setTimeout(r, 1_000));
      }
      await publishAll(nc, [callCompleted({ tenant, callId: 'before' })]);
      await eventually(
        async () => ((await records.countDocuments({ tenant })) === 1 ? true : undefined),
        30_000,
        100,
      );
      killed = Number((await leaderOf()).replace('tollgate-local-', ''));
      await cluster.killNode(killed);
      const events = Array.from({ length: 50 }, (_, i) =>
        callCompleted({ tenant, callId: `after-${i}` }),
      );
      await publishAll(nc, events);
      const published = Date.now();
      await eventually(
        async () => ((await records.countDocuments({ tenant })) === 51 ? true : undefined),
        60_000,
        100,
      );
      // Pulls expire after 5 s and heartbeats every 2.5 s: the client's defaults (30 s pulls,
      // 15 s heartbeats) left the consumer standing still for 30 s.
      expect(Date.now() - published).toBeLessThan(15_000);
    } finally {
      ingester.child.kill('SIGKILL');
      await ingester.exited;
      if (killed > 0) await cluster.startNodes();
      await dropAndClose(mongo, issuer);
    }
  }, 180_000);

  it('cluster - the node leading the events stream killed mid-load: calls keep being answered and every answered call is in the stream once', async () => {
    const client = await TollgateClient.connect({
      natsUrl: cluster.url,
      token: await h.token('support_bot'),
      timeoutMs: 8_000,
    });
    const answered: string[] = [];
    const retryable: string[] = [];
    let killedAt = -1;
    let stop = false;
    try {
      const jsm = await jetstreamManager(nc);
      const leader = (await jsm.streams.info(EVENTS_STREAM)).cluster?.leader ?? '';
      const node = Number(/-(\d)$/.exec(leader)?.[1]);
      expect([1, 2, 3]).toContain(node);
      const worker = async () => {
        while (!stop) {
          const callId = crypto.randomUUID();
          try {
            const result = await client.call(search, byId, { callId, timeoutMs: 8_000 });
            expect(result.status).toBe('ok');
            answered.push(callId);
          } catch (err) {
            // A call in flight on the dead node may be lost; the caller is told it may retry.
            if (!(err instanceof RetryableError)) throw err;
            retryable.push(callId);
          }
        }
      };
      const workers = Array.from({ length: 4 }, worker);
      await eventually(() => (answered.length >= 40 ? true : undefined), 60_000, 50);
      killedAt = answered.length;
      await cluster.killNode(node);
      await eventually(() => (answered.length >= killedAt + 150 ? true : undefined), 120_000, 50);
      stop = true;
      await Promise.all(workers);
    } finally {
      stop = true;
      await client.close();
      await cluster.startNodes();
    }
    // The calls after the kill were answered, and the few that were not were retryable.
    expect(answered.length - killedAt).toBeGreaterThanOrEqual(150);
    expect(retryable.length).toBeLessThan(20);
    // Nothing answered was lost: each call's call.completed is stored exactly once.
    const seen = new Map<string, number>();
    const consumer = await jetstream(nc).consumers.get(EVENTS_STREAM, {
      filter_subjects: [subjects.event(EventTypes.callCompleted, TENANT)],
    });
    for await (const m of await consumer.consume()) {
      const e = decodeEnvelope(m.data);
      if (e.payload.case === 'callCompleted')
        seen.set(e.payload.value.callId, (seen.get(e.payload.value.callId) ?? 0) + 1);
      if (m.info.pending === 0) break;
    }
    const missing = answered.filter((id) => seen.get(id) !== 1);
    expect(missing).toEqual([]);
  }, 300_000);

  it('cluster - two registries applying to one resource at once: no version lost or stored twice', async () => {
    const r = await startRegistryHarness({ bus: cluster });
    try {
      const second = await r.startInstance();
      const tenant = uniqueTenant();
      const operator = { tenant, agent: 'operator', environment: 'prod' };
      const registries = [r.parts.registry, second.parts.registry];
      await registries[0]!.apply(operator, resourceDescriptor(tenant, 'es_orders'));
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) =>
          registries[i % 2]!.apply(
            operator,
            resourceDescriptor(tenant, 'es_orders', { description: `change ${i}` }),
          ).then(() => `change ${i}`),
        ),
      );
      const committed = results.flatMap((x) => (x.status === 'fulfilled' ? [x.value] : []));
      for (const x of results) {
        // A change that lost every race is refused as such (the caller may apply it again).
        if (x.status === 'rejected')
          expect((x.reason as TollgateError).code).toBe('VERSION_CONFLICT');
      }
      expect(committed.length).toBeGreaterThan(0);
      const history = await registries[1]!.history(operator, {
        name: 'es_orders',
        pageSize: 50,
        pageToken: '',
      });
      const versions = history.records.map((x) => x.version);
      // One version per committed change, numbered without a gap or a repeat.
      expect(versions).toEqual(
        Array.from({ length: committed.length + 1 }, (_, i) => committed.length + 1 - i),
      );
      // The bucket (3 replicas) holds the newest, as both instances see it.
      await eventually(async () => {
        const head = await r.parts.kv.get(resourceKey(tenant, 'prod', 'es_orders'));
        return head && JSON.parse(head.string()).version === committed.length + 1
          ? true
          : undefined;
      }, 30_000);
      const info = await (await jetstreamManager(nc)).streams.info(`KV_${r.bucket}`);
      expect(info.config.num_replicas).toBe(3);
    } finally {
      await r.close();
    }
  }, 120_000);
  it('cluster - an approval asked through one executor and decided on the other policy instance resumes on an executor started after both had stopped', async () => {
    const index = uniqueName('tg_cluster_approvals').toLowerCase();
    await h.es.indices.create({ index, mappings: ORDERS_MAPPING as never });
    const writable = {
      descriptor: ordersResource({
        name: 'es_orders_rw',
        endpoint: ES_URL,
        index,
        readonly: false,
        timeoutMs: 8_000,
      }),
      version: 1,
    };
    await h.publishResource(writable.descriptor, writable.version);
    // clerk_bot's writes to it wait for a person's approval.
    await h.publishBundle([orders, writable], 2, { resource: 'es_orders_rw' });
    // Two policy instances on one database and one durable consumer of approval requests.
    // Their bundles go to a bucket of their own: the executors keep the harness's bundles.
    const db = uniqueName('cluster_policy');
    const policies: RunningService[] = [];
    const clients: Array<RpcClient<typeof PolicyService>> = [];
    try {
      for (let i = 0; i < 2; i++) {
        const service = startService('policy', {
          ...cluster.env,
          TOLLGATE_NATS_CREDENTIALS_FILE: join(cluster.credentialsDir, 'admin.nk'),
          TOLLGATE_MONGO_URL: `${infra.mongoUrl}/${db}`,
          TOLLGATE_POLICY_GRPC_ADDR: '127.0.0.1:0',
          TOLLGATE_TRUSTED_ISSUERS_FILE: issuersFile,
          TOLLGATE_POLICY_BUNDLES_BUCKET: 'cluster_policy_bundles',
        });
        policies.push(service);
        const ready = await service.waitForLog((l) => l['msg'] === 'ready', 60_000);
        const port = String(ready['grpc']).split(':').at(-1);
        clients.push(
          createClient(PolicyService, `127.0.0.1:${port}`, { defaultDeadlineMs: 30_000 }),
        );
      }
      const operator = { tenant: TENANT, agent: 'operator', environment: ENV };
      const auth = {
        metadata: { authorization: `Bearer ${await issuePrincipalToken(h.keys, operator)}` },
      };
      await clients[0]!.applyAgent(
        { descriptor: agentDescriptor(TENANT, 'operator', ['admin', 'approver']) as never },
        auth,
      );

      const answer = await h.call(
        'es_orders_rw_write',
        { id: 'c-1', document: { status: 'refunded' } },
        { agent: 'clerk_bot', idempotencyKey: 'cluster-c-1' },
      );
      expect(answer, JSON.stringify(answer.error)).toMatchObject({ status: 'pending_approval' });
      const id = answer.approvalId!;
      // Recorded by whichever instance took the request; the other one reads it.
      const pending = await eventually(
        async () => (await clients[1]!.getApproval({ id }, auth).catch(() => undefined))?.approval,
        30_000,
      );
      expect(pending?.status).toBe(ApprovalStatus.PENDING);

      // Both executors that could have parked it stop; a third one, started now, is the only
      // one left to resume it.
      const third = await h.startExecutor();
      await h.running!.stop();
      await second.stop();
      const approved = await clients[1]!.approve({ id, reason: 'checked on the phone' }, auth);
      expect(approved.approval?.status).toBe(ApprovalStatus.APPROVED);

      const completed = await h.eventOf(answer.callId, EventTypes.callCompleted, 'OK');
      if (completed.payload.case !== 'callCompleted') throw new Error('not a completion');
      expect(completed.payload.value.approvalId).toBe(id);
      expect(await h.poll(answer.callId, 'clerk_bot')).toMatchObject({
        status: 'ok',
        data: { _id: 'c-1', result: 'created' },
      });
      const written = await h.es.get({ index, id: 'c-1' });
      expect(written._version).toBe(1);
      expect((written._source as { status: string }).status).toBe('refunded');
      await third.stop();
    } finally {
      for (const client of clients) client.close();
      for (const service of policies) {
        if (service.child.exitCode === null) {
          service.child.kill('SIGTERM');
          await service.exited;
        }
      }
      await h.es.indices.delete({ index, ignore_unavailable: true });
      const mongo = new MongoClient(`${infra.mongoUrl}/${db}`);
      await mongo.db().dropDatabase();
      await mongo.close();
    }
  }, 180_000);
});
