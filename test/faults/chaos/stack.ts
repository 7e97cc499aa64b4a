import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { ordersResource, seedOrders } from '../../fixtures/orders.js';
import { infra, uniqueName } from '../../support/infra.js';
import { startAuthCallout } from '../../support/bus.js';
import { startNatsCluster } from '../../support/nats-cluster.js';
import type { NatsCluster } from '../../support/nats-cluster.js';
import { startService } from '../../support/process.js';
import type { RunningService } from '../../support/process.js';
import {
  ES_URL,
  ORDERS_INDEX,
  startHarness,
} from '../../../services/executor/test/support/harness.js';
import type { Harness } from '../../../services/executor/test/support/harness.js';
import { startEsProxy } from '../../security/support/es-proxy.js';
import type { EsProxy } from '../../security/support/es-proxy.js';
import { startTcpCut } from './tcp-cut.js';
import type { TcpCut } from './tcp-cut.js';

/**
 * Ports of the campaign: 31500-31549 on one NATS node, 31550-31599 on a cluster (its nodes at
 * +10, +20, +30).
 */
const portsFrom = (base: number) => ({
  executors: [`127.0.0.1:${base + 1}`, `127.0.0.1:${base + 2}`],
  audit: `127.0.0.1:${base + 3}`,
  mongoCut: base + 4,
  cluster: base + 10,
});

/** A service instance the campaign can kill, pause and start again with the same settings. */
export interface Instance {
  name: string;
  running: RunningService;
  restart(): Promise<void>;
}

/**
 * The system under faults: a private NATS (JetStream, file store, restartable) — one node, or
 * a 3-node cluster with every stream and bucket at 3 replicas — two executors in one queue
 * group, the audit service behind a cuttable link to FerretDB, auth callout, and a recording
 * proxy in front of Elasticsearch (slow upstream; and the proof of what reached it).
 */
export interface ChaosStack {
  h: Harness;
  /** On a 3-node NATS cluster (`startChaosStack({ cluster: true })`): its nodes. */
  cluster?: NatsCluster;
  proxy: EsProxy;
  mongoCut: TcpCut;
  executors: Instance[];
  audit: Instance;
  mongo: MongoClient;
  /** The audit service's database. */
  auditDb: string;
  /** Index the campaign's writes go to. */
  writes: string;
  stop(): Promise<void>;
}

async function instance(name: string, env: Record<string, string>): Promise<Instance> {
  /** One start: resolves once it logs `ready`; rejects when it exits first or takes 90 s. */
  const once = async () => {
    const running = startService(name, env);
    const exited = running.exited.then(() => {
      throw new Error('exited while starting');
    });
    try {
      // Generous: on a loaded machine a cold start takes tens of seconds.
      await Promise.race([running.waitForLog((line) => line['msg'] === 'ready', 90_000), exited]);
    } catch (err) {
      running.child.kill('SIGKILL');
      // The last lines say where it stopped (the first ones are its boot warnings).
      const last = running.lines.slice(-8).map((line) => JSON.stringify(line).slice(0, 400));
      throw new Error(
        `${name} did not start (${(err as Error).message.slice(0, 80)}); its last log lines:\n${last.join('\n')}\n${running.stderr.join('').slice(-1_000)}`,
      );
    }
    exited.catch(() => undefined);
    return running;
  };
  // As a supervisor (compose's restart policy, a Deployment) would: a service that exits while
  // starting is started again, up to three times.
  const start = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await once();
      } catch (err) {
        if (attempt === 3) throw err;
      }
    }
  };
  const self: Instance = {
    name,
    running: await start(),
    async restart() {
      self.running = await start();
    },
  };
  return self;
}

/** Ends a child for good (SIGCONT first, in case a fault left it paused). */
export async function ended(instance: Instance): Promise<void> {
  const child = instance.running.child;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGCONT');
  child.kill('SIGKILL');
  await instance.running.exited;
}

export async function startChaosStack(options: { cluster?: boolean } = {}): Promise<ChaosStack> {
  const undo: Array<() => Promise<unknown>> = [];
  try {
    return await startParts(undo, options.cluster === true);
  } catch (err) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw err;
  }
}

/** Starts every part, pushing how to stop it onto `undo` as soon as it runs. */
async function startParts(
  undo: Array<() => Promise<unknown>>,
  clustered: boolean,
): Promise<ChaosStack> {
  const ports = portsFrom(clustered ? 31550 : 31500);
  let cluster: NatsCluster | undefined;
  if (clustered) {
    // The harness opens its buckets from this process's environment.
    process.env['TOLLGATE_NATS_REPLICAS'] = '3';
    const nodes = await startNatsCluster(ports.cluster);
    undo.push(() => nodes.dispose());
    cluster = nodes;
  }
  const h = await startHarness({ noExecutor: true, ...(cluster ? { nats: cluster } : {}) });
  undo.push(() => h.stop());
  await seedOrders(h.es, ORDERS_INDEX);
  const writes = uniqueName('tg_chaos').toLowerCase();
  await h.es.indices.create({ index: writes });
  undo.push(() => h.es.indices.delete({ index: writes }, { ignore: [404] }));
  const proxy = await startEsProxy(ES_URL);
  undo.push(() => proxy.close());
  const reads = {
    descriptor: ordersResource({ endpoint: proxy.url, index: ORDERS_INDEX, timeoutMs: 2_000 }),
    version: 1,
  };
  const orderWrites = {
    descriptor: ordersResource({
      name: 'orders_writes',
      endpoint: proxy.url,
      index: writes,
      readonly: false,
      timeoutMs: 2_000,
    }),
    version: 1,
  };
  for (const r of [reads, orderWrites]) await h.publishResource(r.descriptor, r.version);
  await h.publishBundle([reads, orderWrites], 1, { resource: 'orders_writes' });
  const issuersFile = join(tmpdir(), `chaos-issuer-${process.pid}.json`);
  await writeFile(issuersFile, JSON.stringify(h.keys), { mode: 0o600 });
  undo.push(() => rm(issuersFile, { force: true }));
  const callout = await startAuthCallout(h.nats.url, h.nats.credentialsDir, issuersFile);
  undo.push(() => callout.stop());
  const mongoUrl = new URL(infra.mongoUrl);
  const mongoCut = await startTcpCut(
    { host: mongoUrl.hostname, port: Number(mongoUrl.port || 27017) },
    ports.mongoCut,
  );
  undo.push(() => mongoCut.close());
  const auditDb = uniqueName('chaos_audit');
  const audit = await instance('audit', {
    ...h.nats.env,
    TOLLGATE_TRUSTED_ISSUERS_FILE: issuersFile,
    TOLLGATE_AUDIT_GRPC_ADDR: ports.audit,
    TOLLGATE_MONGO_URL: `mongodb://127.0.0.1:${ports.mongoCut}/${auditDb}`,
  });
  undo.push(() => ended(audit));
  const executors: Instance[] = [];
  undo.push(async () => {
    for (const i of executors) await ended(i);
  });
  for (const address of ports.executors) {
    executors.push(
      await instance('executor', {
        ...h.nats.env,
        TOLLGATE_TRUSTED_ISSUERS_FILE: issuersFile,
        TOLLGATE_EXECUTOR_GRPC_ADDR: address,
        TOLLGATE_CREDENTIAL_NAMESPACES: 'unrestricted',
        TOLLGATE_CURSOR_KEY: 'chaos-campaign',
        TOLLGATE_EXECUTOR_ACCEPT_AFTER_MS: '0',
      }),
    );
  }
  const mongo = await new MongoClient(infra.mongoUrl).connect();
  undo.push(() => mongo.close());
  undo.push(() => mongo.db(auditDb).dropDatabase());
  return {
    h,
    ...(cluster ? { cluster } : {}),
    proxy,
    mongoCut,
    executors,
    audit,
    mongo,
    auditDb,
    writes,
    async stop() {
      for (const i of [...executors, audit]) await ended(i);
      await callout.stop();
      await mongo
        .db(auditDb)
        .dropDatabase()
        .catch(() => undefined);
      await mongo.close();
      await mongoCut.close();
      await h.es.indices.delete({ index: writes }, { ignore: [404] });
      await h.stop();
      await cluster?.dispose();
      await proxy.close();
      await rm(issuersFile, { force: true });
    },
  };
}
