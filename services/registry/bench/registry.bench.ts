/**
 * Registry benchmark, against the real NATS and MongoDB-compatible store of deploy/local:
 *
 * 1. Apply → KV propagation: 1,000 applies over gRPC, each timed from the call until a KV
 *    watcher (as executors and the synthesizer run one) sees the new version.
 * 2. List latency with 10,000 resources in one tenant and environment: first page, a deep
 *    page, a label filter, and a walk over every page.
 * 3. Apply → KV again with those 10,000 resources stored, and the catalog's cold load.
 *
 * Run: `npx tsx services/registry/bench/registry.bench.ts` (after `pnpm build`). Numbers depend
 * on the machine and its load; this script reports, it asserts nothing.
 */
import { Server } from '@grpc/grpc-js';
import { createClient } from '@tollgate/contracts';
import { RegistryService } from '@tollgate/contracts/registry/v1';
import { elasticsearchConnector } from '@tollgate/connector-elasticsearch';
import {
  TokenVerifier,
  createConnectorRegistry,
  generateIssuerKeys,
  issuePrincipalToken,
  parsePublishedResource,
} from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import {
  connectBus,
  connectMongo,
  createCredentialResolver,
  createLogger,
  listenGrpc,
} from '@tollgate/kit';
import { registerRegistryApi, startRegistry } from '../src/index.js';

const NATS_URL = process.env.TOLLGATE_NATS_URL ?? 'nats://127.0.0.1:4222';
const MONGO_URL = process.env.TOLLGATE_MONGO_URL ?? 'mongodb://127.0.0.1:27017';
const APPLIES = Number(process.env.BENCH_APPLIES ?? 1_000);
const RESOURCES = Number(process.env.BENCH_RESOURCES ?? 10_000);
const LIST_CALLS = 200;

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const logger = createLogger({ service: 'registry-bench', level: 'silent' });

function descriptor(
  tenant: string,
  name: string,
  description: string,
  labels: Record<string, string> = {},
) {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name, tenant, environment: 'prod', description, labels },
    spec: {
      type: 'elasticsearch',
      connection: { endpoint: 'http://es.internal:9200', credentialRef: 'vault://shop/es#api_key' },
      target: { index: name },
      schema: {
        fields: {
          id: { type: 'keyword', filterable: true, returnable: true, sortable: true },
          status: { type: 'keyword', filterable: true, returnable: true, aggregatable: true },
          amount: { type: 'double', range: true, returnable: true, sortable: true },
          created_at: { type: 'date', range: true, returnable: true, sortable: true },
          note: { type: 'text', searchable: true, returnable: true },
        },
      },
      access: {
        allowedRoles: ['support', 'order_ops'],
        maxLimit: 100,
        fieldRoles: { note: ['order_ops'] },
      },
    },
  };
}

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  return `n=${sorted.length} p50=${ms(at(0.5))} p90=${ms(at(0.9))} p99=${ms(at(0.99))} max=${ms(sorted.at(-1) ?? NaN)}`;
}

async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

const mongo = await connectMongo(`${MONGO_URL}/registry_bench_${run}`, { timeoutMs: 10_000 });
const nc = await connectBus({ url: NATS_URL, name: 'registry-bench' });
const bucket = `registry_bench_${run}`;
const keys = await generateIssuerKeys('registry-bench');
const verifier = await TokenVerifier.create([{ issuer: keys.issuer, keys: [keys.publicJwk] }]);
const connectors = createConnectorRegistry([elasticsearchConnector]);
const options = {
  db: mongo.db,
  nc,
  logger,
  connectors,
  credentials: createCredentialResolver(),
  draftTtlMs: 3_600_000,
  reconcileIntervalMs: 0,
  bucket,
};
const parts = await startRegistry(options);
const server = new Server();
registerRegistryApi(server, {
  registry: parts.registry,
  drafts: parts.drafts,
  verifier,
  kinds: connectors.kinds(),
  logger,
});
const grpc = await listenGrpc(server, '127.0.0.1:0', 'bench');
const client = createClient(RegistryService, `127.0.0.1:${grpc.port}`, {
  defaultDeadlineMs: 60_000,
});

// Every version the bucket shows, with when it was first seen.
const seen = new Map<string, number>();
const waiters = new Map<string, () => void>();
const watch = await parts.kv.watch({ key: '>' });
void (async () => {
  for await (const entry of watch) {
    if (entry.operation !== 'PUT') continue;
    const published = parsePublishedResource(entry.value);
    if ('invalid' in published) continue;
    const id = `${entry.key}@${published.version}`;
    if (!seen.has(id)) seen.set(id, performance.now());
    waiters.get(id)?.();
  }
})();
const seenAt = (key: string, version: number): Promise<number> => {
  const id = `${key}@${version}`;
  const at = seen.get(id);
  if (at !== undefined) return Promise.resolve(at);
  return new Promise((resolve) => waiters.set(id, () => resolve(seen.get(id) as number)));
};

async function applyToKv(
  principal: Principal,
  names: string[],
  count: number,
  labels: (i: number) => Record<string, string>,
) {
  const metadata = {
    authorization: `Bearer ${await issuePrincipalToken(keys, principal, { ttlSeconds: 7200 })}`,
  };
  const propagation: number[] = [];
  const rpc: number[] = [];
  for (let i = 0; i < count; i++) {
    const name = names[i % names.length] as string;
    const started = performance.now();
    const reply = await client.apply(
      { descriptor: descriptor(principal.tenant, name, `apply ${i}`, labels(i)) as never },
      { metadata },
    );
    rpc.push(performance.now() - started);
    const version = reply.resource?.version ?? 0;
    propagation.push((await seenAt(`${principal.tenant}.prod.${name}`, version)) - started);
  }
  return { propagation, rpc };
}

process.stdout.write(`registry bench: ${APPLIES} applies, ${RESOURCES} resources (run ${run})\n`);

// 1. Apply → KV on a small registry.
const small: Principal = { tenant: `bench-a-${run}`, agent: 'operator', environment: 'prod' };
const smallNames = Array.from({ length: 20 }, (_, i) => `res_${i}`);
const first = await applyToKv(small, smallNames, APPLIES, () => ({}));
process.stdout.write(`apply→KV (20 resources stored):    ${stats(first.propagation)}\n`);
process.stdout.write(`apply RPC (20 resources stored):   ${stats(first.rpc)}\n`);

// 2. Seed RESOURCES resources in one tenant and environment, then List.
const big: Principal = { tenant: `bench-b-${run}`, agent: 'operator', environment: 'prod' };
const names = Array.from({ length: RESOURCES }, (_, i) => `res_${String(i).padStart(5, '0')}`);
const labelsOf = (i: number) => ({ domain: `d${i % 10}`, team: `t${i % 3}` });
const seedStarted = performance.now();
await pool(names, 16, async (name) => {
  await parts.registry.apply(
    big,
    descriptor(big.tenant, name, `seeded ${name}`, labelsOf(Number(name.slice(4)))),
  );
});
const seedSeconds = (performance.now() - seedStarted) / 1000;
process.stdout.write(
  `seeded ${RESOURCES} resources in ${seedSeconds.toFixed(1)} s (${(RESOURCES / seedSeconds).toFixed(0)}/s, 16 concurrent)\n`,
);

const metadata = {
  authorization: `Bearer ${await issuePrincipalToken(keys, big, { ttlSeconds: 7200 })}`,
};
async function timeList(label: string, request: Parameters<typeof client.list>[0], expect: number) {
  const samples: number[] = [];
  for (let i = 0; i < LIST_CALLS; i++) {
    const started = performance.now();
    const page = await client.list(request, { metadata });
    samples.push(performance.now() - started);
    if (page.resources.length !== expect)
      throw new Error(`${label}: ${page.resources.length} resources, expected ${expect}`);
  }
  process.stdout.write(`List ${label.padEnd(30)} ${stats(samples)}\n`);
}
await timeList('first page (50)', { pageSize: 50 }, 50);
let deep = '';
for (let i = 0; i < RESOURCES / 2 / 500; i++)
  deep = (await client.list({ pageSize: 500, pageToken: deep }, { metadata })).nextPageToken;
await timeList('page at the middle (50)', { pageSize: 50, pageToken: deep }, 50);
const matching = (labels: Record<string, string>) =>
  names.filter((_, i) => Object.entries(labels).every(([k, v]) => labelsOf(i)[k as 'domain'] === v))
    .length;
await timeList(
  'label domain=d3 (50)',
  { pageSize: 50, labels: { domain: 'd3' } },
  Math.min(50, matching({ domain: 'd3' })),
);
await timeList(
  'labels domain+team (500 max)',
  { pageSize: 500, labels: { domain: 'd3', team: 't0' } },
  Math.min(500, matching({ domain: 'd3', team: 't0' })),
);
const walk: number[] = [];
for (let k = 0; k < 10; k++) {
  const started = performance.now();
  let token = '';
  let total = 0;
  do {
    const page = await client.list({ pageSize: 500, pageToken: token }, { metadata });
    total += page.resources.length;
    token = page.nextPageToken;
  } while (token !== '');
  walk.push(performance.now() - started);
  if (total !== RESOURCES) throw new Error(`walk saw ${total} resources`);
}
process.stdout.write(`List every page (500 each)         ${stats(walk)}\n`);

// 3. Apply → KV with RESOURCES stored, and a cold catalog load.
const loaded = await applyToKv(big, names.slice(0, 50), Math.min(200, APPLIES), labelsOf);
process.stdout.write(`apply→KV (${RESOURCES} stored):          ${stats(loaded.propagation)}\n`);
process.stdout.write(`apply RPC (${RESOURCES} stored):         ${stats(loaded.rpc)}\n`);
await parts.store.flush();
const coldStarted = performance.now();
const cold = await startRegistry(options);
process.stdout.write(
  `cold start (catalog load of ${RESOURCES + smallNames.length} resources): ${(performance.now() - coldStarted).toFixed(0)} ms\n`,
);

await cold.stop();
watch.stop();
client.close();
await grpc.stop();
await parts.stop();
await parts.kv.destroy();
await connectors.close();
await nc.drain();
await mongo.db.dropDatabase();
await mongo.close();
