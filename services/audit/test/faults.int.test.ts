import { create } from '@bufbuild/protobuf';
import { jetstreamManager } from '@nats-io/jetstream';
import { buckets, openBucket } from '@tollgate/kit';
import { declareAgents } from '../../../test/support/roles.js';
import { VerifyRequestSchema } from '@tollgate/contracts/audit/v1';
import { EVENTS_STREAM, ensureEventStream } from '@tollgate/kit';
import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { collections } from '../src/store.js';
import { callCompleted } from './support/events.js';
import { sharedMongoUrl, startHarness } from './support/harness.js';
import { publishAll } from './support/publish.js';
import { eventually, ownFerretDb, ownNatsServer, uniqueName } from './support/servers.js';
import { auditClient, startAuditProcess, testIssuer } from './support/service.js';

const burst = (tenant: string, n: number, prefix = 'c') =>
  Array.from({ length: n }, (_, i) =>
    callCompleted({ tenant, callId: `${prefix}-${i}`, sessionId: `s-${i % 50}` }),
  );

describe('audit faults', () => {
  it('faults - kill -9 in the middle of a 10,000-event burst: after a restart all are stored exactly once and the chain verifies', async () => {
    const nats = await ownNatsServer();
    const nc = await nats.connect('audit-faults');
    await ensureEventStream(nc);
    const dbUrl = `${sharedMongoUrl}/${uniqueName('audit_kill')}`;
    const mongo = new MongoClient(dbUrl);
    const records = mongo.db().collection(collections.records);
    const issuer = await testIssuer();
    const env = {
      ...nats.env,
      TOLLGATE_MONGO_URL: dbUrl,
      TOLLGATE_TRUSTED_ISSUERS_FILE: issuer.file,
      // What the killed run held unacknowledged comes back after this.
      TOLLGATE_AUDIT_ACK_WAIT_MS: '5000',
    };
    const tenant = 'burst';
    try {
      const first = await startAuditProcess(env);
      let published = 0;
      const publishing = publishAll(nc, burst(tenant, 10_000), {
        onPublished: (n) => (published = n),
      });
      await eventually(
        async () => ((await records.countDocuments({ tenant })) >= 1_000 ? true : undefined),
        120_000,
        50,
      );
      first.child.kill('SIGKILL');
      expect(await first.exited).toBe(null);
      const storedAtKill = await records.countDocuments({ tenant });
      expect(storedAtKill).toBeLessThan(10_000);
      await publishing;
      expect(published).toBe(10_000);

      const second = await startAuditProcess(env);
      try {
        await eventually(
          async () => ((await records.countDocuments({ tenant })) >= 10_000 ? true : undefined),
          240_000,
          500,
        );
        await declareAgents(await openBucket(nc, buckets.policyBundles), tenant, {
          auditor: ['viewer'],
        });
        const client = auditClient(second.grpc, await issuer.token(tenant));
        // Let redeliveries of what the first run stored but never acknowledged arrive and be dropped.
        await eventually(
          async () => {
            const info = await (await jetstreamManager(nc)).consumers.info(EVENTS_STREAM, 'audit');
            return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
          },
          120_000,
          500,
        );
        expect(await records.countDocuments({ tenant })).toBe(10_000);
        expect((await records.distinct('call_id', { tenant })).length).toBe(10_000);
        expect(await client.verify(create(VerifyRequestSchema, {}))).toMatchObject({
          ok: true,
          checked: 10_000n,
          firstBrokenSequence: 0n,
        });
        client.close();
      } finally {
        second.child.kill('SIGKILL');
        await second.exited;
      }
    } finally {
      await nc.close();
      await issuer.dispose();
      await mongo
        .db()
        .dropDatabase()
        .catch(() => {});
      await mongo.close();
      await nats.dispose();
    }
  }, 600_000);

  it('faults - NATS restarting mid-burst: ingestion resumes and nothing is lost or stored twice', async () => {
    const h = await startHarness();
    const tenant = 'natsrestart';
    const records = h.mongo.db.collection(collections.records);
    try {
      const publisher = await h.nats.connect('audit-faults-publisher');
      const publishing = publishAll(publisher, burst(tenant, 3_000));
      await eventually(
        async () => ((await records.countDocuments({ tenant })) >= 500 ? true : undefined),
        120_000,
        50,
      );
      await h.nats.stop();
      await h.nats.start();
      await publishing;
      await eventually(
        async () => ((await records.countDocuments({ tenant })) >= 3_000 ? true : undefined),
        240_000,
        250,
      );
      await publisher.close();
      expect(await records.countDocuments({ tenant })).toBe(3_000);
      expect(await h.trail.verify(tenant, create(VerifyRequestSchema, {}))).toMatchObject({
        ok: true,
        checked: 3_000n,
      });
      expect(await h.store.deadLetters()).toEqual([]);
    } finally {
      await h.close();
    }
  }, 600_000);

  it('faults - Mongo unavailable for a while: ingestion pauses without acknowledging, resumes and loses nothing', async () => {
    const ferret = await ownFerretDb();
    const h = await startHarness({
      mongoUrl: ferret.url,
      settings: { ackWaitMs: 2_000, poisonDeliveries: 3 },
    });
    const tenant = 'mongodown';
    const records = h.mongo.db.collection(collections.records);
    const consumerInfo = async () =>
      (await jetstreamManager(h.nc)).consumers.info(EVENTS_STREAM, (await consumerName(h.nc))!);
    try {
      await publishAll(h.nc, burst(tenant, 1_000, 'before'));
      await eventually(
        async () => ((await records.countDocuments({ tenant })) >= 200 ? true : undefined),
        120_000,
        50,
      );
      await ferret.stop();
      await publishAll(h.nc, burst(tenant, 1_000, 'during'));
      await eventually(
        () =>
          h.lines.find(
            (l) => l.msg === 'audit store unavailable; ingestion paused, nothing acknowledged',
          ),
        60_000,
      );
      // Hold the outage for several ack-wait periods: held events must neither be acknowledged
      // nor redelivered into the poison limit.
      await new Promise((r) => setTimeout(r, 8_000));
      const during = await consumerInfo();
      expect(during.num_ack_pending + during.num_pending).toBeGreaterThan(0);
      await ferret.start();
      await eventually(
        async () => ((await records.countDocuments({ tenant })) >= 2_000 ? true : undefined),
        240_000,
        250,
      );
      await eventually(
        async () => {
          const info = await consumerInfo();
          return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
        },
        120_000,
        250,
      );
      expect(await records.countDocuments({ tenant })).toBe(2_000);
      expect(await h.store.deadLetters()).toEqual([]);
      expect(h.lines.some((l) => l.msg === 'audit store back; ingestion resumed')).toBe(true);
      expect(await h.trail.verify(tenant, create(VerifyRequestSchema, {}))).toMatchObject({
        ok: true,
        checked: 2_000n,
      });
    } finally {
      await h.close();
      await ferret.dispose();
    }
  }, 600_000);
});

async function consumerName(
  nc: Parameters<typeof jetstreamManager>[0],
): Promise<string | undefined> {
  const jsm = await jetstreamManager(nc);
  for await (const c of jsm.consumers.list(EVENTS_STREAM)) return c.name;
  return undefined;
}
