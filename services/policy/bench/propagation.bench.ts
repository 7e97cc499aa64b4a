/**
 * Policy bundle propagation, against the real NATS and MongoDB-compatible store of
 * deploy/local: ApplyPolicy over gRPC (which returns once the tenant's new bundle is in KV),
 * and the time until a LocalDecider watching the bundle bucket — as executors and the
 * synthesizer run one — has loaded that bundle. The tenant is realistic: 12 resources from the
 * registry's bucket, 40 agents, 12 policies besides the one being changed.
 *
 * Two runs: with the default coalescing window (50 ms, at most one rebuild per tenant per
 * window) and with none. Run: `npx tsx services/policy/bench/propagation.bench.ts` (after
 * `pnpm build`). `BENCH_APPLIES` sets the applies per run (default 200; `--smoke`, for CI: 10).
 * Reports, asserts nothing.
 */
import { performance } from 'node:perf_hooks';
import { Server } from '@grpc/grpc-js';
import { createClient } from '@tollgate/contracts';
import { PolicyService } from '@tollgate/contracts/policy/v1';
import { TokenVerifier, generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import type { PublishedResource, ResourceSpec } from '@tollgate/core';
import {
  connectMongo,
  createLogger,
  listenGrpc,
  policyBundleKey,
  resourceKey,
  watchBucket,
} from '@tollgate/kit';
import { LocalDecider } from '@tollgate/policy';
import { registerPolicyApi, startPolicyService } from '../src/index.js';
import { connectTestBus } from '../../../test/support/bus.js';

const NATS_URL = process.env.TOLLGATE_NATS_URL ?? 'nats://127.0.0.1:4222';
const MONGO_URL = process.env.TOLLGATE_MONGO_URL ?? 'mongodb://127.0.0.1:27017';
const SMOKE = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';
const APPLIES = Number(process.env.BENCH_APPLIES ?? (SMOKE ? 10 : 200));
const ROLES = ['support', 'order_ops', 'finance', 'analyst'];

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const logger = createLogger({ service: 'policy-bench', level: 'silent' });

function resource(tenant: string, i: number): PublishedResource {
  const name = `es_data_${i}`;
  return {
    tenant,
    environment: 'prod',
    name,
    version: 1,
    hash: `h${i}`,
    publishedAt: new Date().toISOString(),
    descriptor: {
      apiVersion: 'tollgate.dev/v1',
      kind: 'Resource',
      metadata: { name, tenant, environment: 'prod' },
      spec: {
        type: 'elasticsearch',
        connection: { endpoint: 'http://es.internal:9200', credentialRef: 'env://ES_KEY' },
        target: { index: name },
        schema: {
          fields: {
            id: { type: 'keyword', filterable: true, returnable: true },
            user_id: { type: 'keyword', filterable: true, returnable: true },
            amount: { type: 'double', range: true, returnable: true },
            email: { type: 'keyword', returnable: true },
          },
        },
        access: {
          allowedRoles: [ROLES[i % ROLES.length] as string],
          readonly: i % 3 !== 0,
          maxLimit: 50 + i,
          fieldRoles: { user_id: ['order_ops'] },
        },
      } as ResourceSpec,
    },
  };
}

function changingPolicy(tenant: string, n: number) {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Policy',
    metadata: { name: 'changing', tenant, description: `revision ${n}` },
    spec: {
      grants: [
        {
          effect: 'allow',
          principals: { roles: ['analyst'] },
          actions: [`es_data_${n % 12}.search`],
          conditions: { ipCidr: ['10.0.0.0/8'], timeWindow: '08:00-20:00 Europe/Berlin' },
        },
      ],
    },
  };
}

function percentiles(samples: number[]): { p50: number; p90: number; p99: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1) ?? NaN };
}

function line(label: string, samples: number[]): string {
  const p = percentiles(samples);
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  return `${label.padEnd(44)} n=${samples.length} p50=${ms(p.p50)} p90=${ms(p.p90)} p99=${ms(p.p99)} max=${ms(p.max)}`;
}

async function measure(windowMs: number): Promise<Record<string, ReturnType<typeof percentiles>>> {
  const mongo = await connectMongo(`${MONGO_URL}/policy_bench_${run}_${windowMs}`);
  const nc = await connectTestBus({ url: NATS_URL, name: 'policy-bench' });
  const keys = await generateIssuerKeys('policy-bench');
  const verifier = await TokenVerifier.create([{ issuer: keys.issuer, keys: [keys.publicJwk] }]);
  const parts = await startPolicyService({
    db: mongo.db,
    nc,
    logger,
    approvalTtlMs: 1_800_000,
    approvalSweepIntervalMs: 0,
    approvalsDurable: `policy_bench_${run}_${windowMs}`,
    approvalsReplayMs: 0,
    bundleWindowMs: windowMs,
    reconcileIntervalMs: 0,
    resourcesBucket: `bench_res_${run}_${windowMs}`,
    bundlesBucket: `bench_bundles_${run}_${windowMs}`,
  });
  const server = new Server();
  registerPolicyApi(server, { ...parts, verifier, logger });
  const grpc = await listenGrpc(server, '127.0.0.1:0', 'bench');
  const client = createClient(PolicyService, `127.0.0.1:${grpc.port}`, {
    defaultDeadlineMs: 30_000,
  });
  const tenant = `bench-${run}`;
  const operator = { tenant, agent: 'operator', environment: 'prod' };
  const as = { metadata: { authorization: `Bearer ${await issuePrincipalToken(keys, operator)}` } };

  for (let i = 0; i < 12; i++) {
    const r = resource(tenant, i);
    await parts.resourcesKv.put(resourceKey(tenant, 'prod', r.name), JSON.stringify(r));
  }
  const agent = (name: string, roles: string[]) => ({
    apiVersion: 'tollgate.dev/v1',
    kind: 'Agent',
    metadata: { name, tenant },
    spec: { roles },
  });
  await client.applyAgent({ descriptor: agent('operator', ['admin', 'approver']) as never }, as);
  for (let i = 0; i < 40; i++)
    await client.applyAgent(
      { descriptor: agent(`agent_${i}`, [ROLES[i % ROLES.length] as string]) as never },
      as,
    );
  for (let i = 0; i < 12; i++)
    await client.applyPolicy(
      {
        descriptor: {
          apiVersion: 'tollgate.dev/v1',
          kind: 'Policy',
          metadata: { name: `rules-${i}`, tenant },
          spec: {
            grants: [
              {
                effect: 'allow',
                principals: { roles: [ROLES[(i + 1) % 4] as string] },
                actions: [`es_data_${i}.get`],
              },
              {
                effect: 'require_approval',
                principals: { roles: ['order_ops'] },
                actions: [`es_data_${i}.write`],
              },
            ],
          },
        } as never,
      },
      as,
    );

  // The executor's side: a decider loaded from every bundle of the resources' environment the
  // watch delivers.
  const key = policyBundleKey(tenant, 'prod');
  const decider = new LocalDecider();
  const loadedAt = new Map<number, number>();
  const watch = await watchBucket(
    parts.bundlesKv,
    (entryKey, value) => {
      if (entryKey !== key || value === undefined) return;
      const result = decider.load(value);
      if (result.ok) loadedAt.set(result.version, performance.now());
    },
    logger,
  );
  await watch.ready;

  const applyMs: number[] = [];
  const loadedMs: number[] = [];
  const echoMs: number[] = [];
  for (let n = 1; n <= APPLIES; n++) {
    const start = performance.now();
    const reply = await client.applyPolicy({ descriptor: changingPolicy(tenant, n) as never }, as);
    const applied = performance.now();
    const version = reply.bundleVersion;
    while (!loadedAt.has(version)) await new Promise((r) => setImmediate(r));
    const loaded = loadedAt.get(version) as number;
    applyMs.push(applied - start);
    loadedMs.push(loaded - start);
    echoMs.push(Math.max(0, loaded - applied));
  }
  const bundleBytes = (await parts.bundlesKv.get(key))?.value.length ?? 0;

  watch.stop();
  client.close();
  await grpc.stop();
  await parts.stop();
  await parts.bundlesKv.destroy();
  await parts.resourcesKv.destroy();
  const { jetstreamManager } = await import('@nats-io/jetstream');
  await (
    await jetstreamManager(nc)
  ).consumers
    .delete('TOLLGATE_EVENTS', `policy_bench_${run}_${windowMs}`)
    .catch(() => false);
  await nc.drain();
  await mongo.db.dropDatabase();
  await mongo.close();

  console.log(`\ncoalescing window ${windowMs} ms, bundle ${bundleBytes} bytes`);
  console.log(line('ApplyPolicy → bundle in KV (RPC returns)', applyMs));
  console.log(line('ApplyPolicy → loaded by a watching decider', loadedMs));
  console.log(line('  of which KV watch → decider loaded', echoMs));
  return {
    applyToKv: percentiles(applyMs),
    applyToDecider: percentiles(loadedMs),
    watchToDecider: percentiles(echoMs),
  };
}

const results = { window50: await measure(50), window0: await measure(0) };
console.log(`\n${JSON.stringify({ applies: APPLIES, results })}`);
