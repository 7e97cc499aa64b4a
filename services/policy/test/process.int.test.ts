import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { createClient } from '@tollgate/contracts';
import { ApprovalStatus, PolicyService } from '@tollgate/contracts/policy/v1';
import { generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import type { IssuerKeys } from '@tollgate/core';
import { EVENTS_STREAM, EventTypes, connectMongo } from '@tollgate/kit';
import { bundleText } from '@tollgate/policy';
import { startService } from '../../../test/support/process.js';
import type { RunningService } from '../../../test/support/process.js';
import {
  agentDescriptor,
  cast,
  eventually,
  infra,
  requestApproval,
  uniqueName,
  uniqueTenant,
  watchEvents,
} from './harness.js';
import { connectTestBus, sharedCredentialsDir } from '../../../test/support/bus.js';

let service: RunningService;
let decided: Awaited<ReturnType<typeof watchEvents>>;
/** Requested before the service first starts: its new durable consumer must replay it. */
let early: { id: string };
let nc: NatsConnection;
let keys: IssuerKeys;
let dir: string;
const db = uniqueName('policy_proc');
const durable = uniqueName('policy_proc_approvals');
const bundlesBucket = uniqueName('proc_bundles');
const resourcesBucket = uniqueName('proc_resources');

beforeAll(async () => {
  nc = await connectTestBus({ url: infra.natsUrl, name: 'policy-process-test' });
  keys = await generateIssuerKeys('policy-process-test');
  dir = await mkdtemp(join(tmpdir(), 'policy-proc-'));
  await writeFile(join(dir, 'issuers.json'), JSON.stringify(keys));
  decided = await watchEvents(nc, [EventTypes.approvalDecided]);
  const who = cast(uniqueTenant());
  early = await requestApproval(
    nc,
    {
      principal: who.ops,
      resource: 'es_orders',
      resourceVersion: 1,
      tool: 'es_orders_write',
      args: { id: 'o-1' },
    },
    { expiresAt: new Date(Date.now() + 1_000) },
  );
  service = startService('policy', {
    TOLLGATE_MONGO_URL: `${infra.mongoUrl}/${db}`,
    TOLLGATE_NATS_URL: infra.natsUrl,
    // Its own durable and buckets on the shared server: only the admin key may use those.
    TOLLGATE_NATS_CREDENTIALS_FILE: join(sharedCredentialsDir(), 'admin.nk'),
    TOLLGATE_POLICY_GRPC_ADDR: '127.0.0.1:0',
    TOLLGATE_TRUSTED_ISSUERS_FILE: join(dir, 'issuers.json'),
    TOLLGATE_POLICY_APPROVALS_DURABLE: durable,
    TOLLGATE_POLICY_BUNDLES_BUCKET: bundlesBucket,
    TOLLGATE_POLICY_RESOURCES_BUCKET: resourcesBucket,
    TOLLGATE_APPROVAL_SWEEP_INTERVAL_MS: '200',
    TOLLGATE_POLICY_APPROVALS_REPLAY_MS: '60000',
  });
});
afterAll(async () => {
  await decided?.stop();
  if (service && service.child.exitCode === null) {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  const kvm = new Kvm(nc);
  for (const bucket of [bundlesBucket, resourcesBucket])
    await (await kvm.open(bucket)).destroy().catch(() => false);
  await (await jetstreamManager(nc)).consumers.delete(EVENTS_STREAM, durable).catch(() => false);
  await nc.drain();
  const mongo = await connectMongo(`${infra.mongoUrl}/${db}`);
  await mongo.db.dropDatabase();
  await mongo.close();
  await rm(dir, { recursive: true, force: true });
});

describe('process', () => {
  it('process - main boots from its environment, serves gRPC, publishes bundles, replays recent approval requests, sweeps expired ones and stops on SIGTERM', async () => {
    const ready = await service.waitForLog((l) => l.msg === 'ready', 60_000);
    const port = String(ready.grpc).split(':').at(-1);
    const client = createClient(PolicyService, `127.0.0.1:${port}`, { defaultDeadlineMs: 30_000 });
    try {
      const tenant = uniqueTenant();
      const who = cast(tenant);
      const token = await issuePrincipalToken(keys, who.operator);
      const applied = await client.applyAgent(
        { descriptor: agentDescriptor(tenant, 'operator', ['admin', 'approver']) as never },
        { metadata: { authorization: `Bearer ${token}` } },
      );
      expect(applied.bundleVersion).toBe(1);
      const kv = await new Kvm(nc).open(bundlesBucket);
      const entry = await kv.get(tenant);
      expect(JSON.parse(bundleText(entry!.value))).toMatchObject({
        tenant,
        version: 1,
      });

      // Replayed by the new durable, recorded, then expired by the periodic sweeper.
      const event = await eventually(
        () =>
          decided.events
            .map((e) =>
              e.payload.case === 'approvalDecided' ? e.payload.value.approval : undefined,
            )
            .find((a) => a?.id === early.id),
        30_000,
      );
      expect(event?.status).toBe(ApprovalStatus.EXPIRED);
    } finally {
      client.close();
    }
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });
});
