/**
 * `tollgate up --cluster`: the CLI starts two instances of every service against a 3-node NATS
 * cluster, `status` reports them, the services keep 3 replicas of their streams and buckets, an
 * instance that dies is reported stopped and brought back by the next `up`, and `down` stops
 * all of them. The cluster is deploy/local's (test/support/nats-cluster.ts); the databases are
 * the shared ones (a database of its own). Ports: 30250-30272 (NATS), 30280-30291 and
 * 30380-30391 (the two instances of each service).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_NAMES, addressVariable } from '../../packages/cli/src/index.js';
import { infra, uniqueName } from '../support/infra.js';
import { startNatsCluster } from '../support/nats-cluster.js';
import type { NatsCluster } from '../support/nats-cluster.js';
import { tollgate, tollgateJson } from './support/cli.js';

interface StatusDoc {
  healthy: boolean;
  cluster: boolean;
  nats: string;
  services: Array<{ name: string; instance: string; state: string; pid?: number; address: string }>;
}

let cluster: NatsCluster;
let nc: NatsConnection;
let home: string;
let env: NodeJS.ProcessEnv;
const database = uniqueName('tg_cluster_stack');

beforeAll(async () => {
  cluster = await startNatsCluster(30250);
  nc = await cluster.connect('cluster-stack-test');
  home = await mkdtemp(join(tmpdir(), 'tollgate-cluster-home-'));
  env = {
    TOLLGATE_HOME: home,
    TOLLGATE_NATS_URL: cluster.url,
    TOLLGATE_NATS_CREDENTIALS_DIR: cluster.credentialsDir,
    TOLLGATE_MONGO_URL: `${infra.mongoUrl}/${database}`,
    TOLLGATE_EGRESS_RULES: '*/*=public',
    TOLLGATE_CONSOLE_ADDR: '127.0.0.1:30290',
    TOLLGATE_MCP_HTTP_ADDR: '127.0.0.1:30291',
    ...Object.fromEntries(
      SERVICE_NAMES.map((name, i) => [addressVariable(name), `127.0.0.1:${30280 + i}`]),
    ),
  };
}, 180_000);

afterAll(async () => {
  if (env) await tollgate(['down', '--keep-infra'], { env, timeoutMs: 120_000 });
  await nc?.close();
  await cluster?.dispose();
  const mongo = new MongoClient(infra.mongoUrl);
  await mongo
    .db(database)
    .dropDatabase()
    .catch(() => undefined);
  await mongo.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('cli - tollgate up --cluster', () => {
  it('cluster stack - two instances of every service on their own ports, reported by status, streams at 3 replicas; a dead instance is restarted by up; down stops them all', async () => {
    const up = await tollgateJson<StatusDoc>(['up', '--cluster', '--no-infra'], {
      env,
      timeoutMs: 600_000,
    });
    expect(up.healthy).toBe(true);
    expect(up.cluster).toBe(true);
    expect(up.services.map((s) => s.instance).sort()).toEqual(
      SERVICE_NAMES.flatMap((name) => [name, `${name}-2`]).sort(),
    );
    expect(up.services.every((s) => s.state === 'running')).toBe(true);
    expect(new Set(up.services.map((s) => s.pid)).size).toBe(SERVICE_NAMES.length * 2);
    expect(up.services.find((s) => s.instance === 'executor-2')?.address).toBe('127.0.0.1:30384');

    // The services were told about the cluster: what they created keeps 3 replicas.
    const streams = await (await jetstreamManager(nc)).streams.list().next();
    expect(streams.length).toBeGreaterThan(3);
    for (const s of streams)
      expect({ name: s.config.name, replicas: s.config.num_replicas }).toEqual({
        name: s.config.name,
        replicas: 3,
      });

    // `status` (without --cluster) finds the second instances and says cluster mode.
    const status = await tollgateJson<StatusDoc>(['status'], { env });
    expect(status).toMatchObject({ healthy: true, cluster: true });
    expect(status.services).toHaveLength(SERVICE_NAMES.length * 2);

    // An instance that died is reported, and the next `up` starts only that one again.
    const victim = status.services.find((s) => s.instance === 'audit-2')!;
    process.kill(victim.pid!, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    const run = await tollgate(['--json', 'status'], { env });
    expect(run.code).not.toBe(0);
    const degraded = JSON.parse(run.stdout) as StatusDoc;
    expect(degraded.healthy).toBe(false);
    expect(degraded.services.find((s) => s.instance === 'audit-2')?.state).toBe('stopped');
    const again = await tollgateJson<StatusDoc & { services: Array<{ action?: string }> }>(
      ['up', '--cluster', '--no-infra'],
      { env, timeoutMs: 300_000 },
    );
    expect(again.healthy).toBe(true);
    const actions = again.services.map((s) => `${s.instance}:${(s as { action?: string }).action}`);
    expect(actions.filter((a) => !a.endsWith(':already_running'))).toEqual(['audit-2:started']);

    const down = await tollgateJson<{ services: Array<{ instance: string; result: string }> }>(
      ['down', '--keep-infra'],
      { env, timeoutMs: 120_000 },
    );
    expect(down.services.filter((s) => s.result !== 'not_running')).toHaveLength(
      SERVICE_NAMES.length * 2,
    );
    const after = await tollgate(['--json', 'status'], { env });
    const stopped = JSON.parse(after.stdout) as StatusDoc;
    expect(stopped.services.every((s) => s.state === 'stopped')).toBe(true);
  }, 900_000);
});
