/**
 * Registry benchmark, against the real NATS and MongoDB-compatible store of deploy/local:
 *
 * 1. Apply → KV propagation: 1,000 applies over gRPC, each timed from the call until a KV
 *    watcher (as executors and the synthesizer run one) sees the new version.
 * 2. List latency with 10,000 resources in one tenant and environment: first page, a middle
 *    page, label filters, and a walk over every page; plus the cold start on them and the
 *    cost of a reconciliation pass.
 * 3. Apply → KV again with those 10,000 resources stored.
 *
 * Run: `npx tsx services/registry/bench/registry.bench.ts` (after `pnpm build`); BENCH_APPLIES
 * and BENCH_RESOURCES scale it down (`--smoke`, for CI: 20 applies, 300 resources). It reports, it asserts nothing: numbers depend on the
 * machine and its load.
 */
import { loadavg } from 'node:os';
import { Server } from '@grpc/grpc-js';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import { RegistryService } from '@tollgate/contracts/registry/v1';
import { elasticsearchConnector } from '@tollgate/connector-elasticsearch';
import {
  DEFAULT_CREDENTIAL_NAMESPACES,
  TokenVerifier,
  createConnectorRegistry,
  descriptorHash,
  generateIssuerKeys,
  issuePrincipalToken,
  parseCredentialNamespaces,
  parseEgressRules,
  parsePublishedResource,
} from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import {
  connectMongo,
  createCredentialResolver,
  createLogger,
  listenGrpc,
  openBucket,
} from '@tollgate/kit';
import {
  COLLECTIONS,
  projectionValue,
  registerRegistryApi,
  startRegistry,
  toVersionDocument,
  validResource,
  versionId,
} from '../src/index.js';
import type { RegistryParts, VersionRecord } from '../src/index.js';
import { connectTestBus } from '../../../test/support/bus.js';
import { declareAgents } from '../../../test/support/roles.js';

const NATS_URL = process.env.TOLLGATE_NATS_URL ?? 'nats://127.0.0.1:4222';
const MONGO_URL = process.env.TOLLGATE_MONGO_URL ?? 'mongodb://127.0.0.1:27017';
const SMOKE = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';
const APPLIES = Number(process.env.BENCH_APPLIES ?? (SMOKE ? 20 : 1_000));
const RESOURCES = Number(process.env.BENCH_RESOURCES ?? (SMOKE ? 300 : 10_000));
const LIST_CALLS = SMOKE ? 20 : 200;

type Client = RpcClient<typeof RegistryService>;

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const logger = createLogger({ service: 'registry-bench', level: 'silent' });
const out = (line: string) => process.stdout.write(`${line}\n`);

function descriptor(
  tenant: string,
  name: string,
  description: string,
  labels: Record<string, string>,
) {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name, tenant, environment: 'prod', description, labels },
    spec: {
      type: 'elasticsearch',
      connection: {
        endpoint: 'http://es.internal:9200',
        credentialRef: `vault://secret/${tenant}/prod/es#api_key`,
      },
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
const nc = await connectTestBus({ url: NATS_URL, name: 'registry-bench' });
const keys = await generateIssuerKeys('registry-bench');
const verifier = await TokenVerifier.create([{ issuer: keys.issuer, keys: [keys.publicJwk] }]);
const connectors = createConnectorRegistry([elasticsearchConnector]);
const options = {
  db: mongo.db,
  nc,
  logger,
  connectors,
  credentials: createCredentialResolver(),
  // the production default: every apply pays for the namespace check
  credentialNamespaces: parseCredentialNamespaces(DEFAULT_CREDENTIAL_NAMESPACES),
  // and for the egress check of its endpoint, a listed name (resolved here without a DNS server)
  egressRules: parseEgressRules('*/*=public,es.internal:9200'),
  resolveHost: async () => ['10.0.0.9'],
  draftTtlMs: 3_600_000,
  reconcileIntervalMs: 0,
  bucket: `registry_bench_${run}`,
  bundlesBucket: `registry_bench_bundles_${run}`,
};

/** A registry served over gRPC on a free port. */
async function serve(parts: RegistryParts): Promise<{ client: Client; stop(): Promise<void> }> {
  const server = new Server();
  registerRegistryApi(server, {
    registry: parts.registry,
    drafts: parts.drafts,
    verifier,
    roles: parts.roles,
    kinds: connectors.types(),
    logger,
  });
  const grpc = await listenGrpc(server, '127.0.0.1:0', 'bench');
  const client = createClient(RegistryService, `127.0.0.1:${grpc.port}`, {
    defaultDeadlineMs: 60_000,
  });
  return {
    client,
    stop: async () => {
      client.close();
      await grpc.stop();
      await parts.stop();
    },
  };
}

const parts = await startRegistry(options);
// The operator of each benchmark tenant is an admin (every Apply reads its roles, as in production).
const bundlesKv = await openBucket(nc, options.bundlesBucket);
for (const tenant of [`bench-a-${run}`, `bench-b-${run}`])
  await declareAgents(bundlesKv, tenant, { operator: ['admin'] });
const first = await serve(parts);

// Every version the bucket shows, and when it was first seen.
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

async function applyToKv(via: Client, principal: Principal, names: string[], count: number) {
  const token = await issuePrincipalToken(keys, principal, { ttlSeconds: 7200 });
  const metadata = { authorization: `Bearer ${token}` };
  const propagation: number[] = [];
  const rpc: number[] = [];
  for (let i = 0; i < count; i++) {
    const name = names[i % names.length] as string;
    const started = performance.now();
    const reply = await via.apply(
      { descriptor: descriptor(principal.tenant, name, `apply ${i}`, labelsOf(i)) as never },
      { metadata },
    );
    rpc.push(performance.now() - started);
    const version = reply.resource?.version ?? 0;
    propagation.push((await seenAt(`${principal.tenant}.prod.${name}`, version)) - started);
  }
  return { propagation, rpc };
}

const labelsOf = (i: number) => ({ domain: `d${i % 10}`, team: `t${i % 3}` });
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
out(
  `registry bench: ${APPLIES} applies, ${RESOURCES} resources (run ${run}); load average ${load()}`,
);

// 1. Apply → KV on a small registry.
const small: Principal = { tenant: `bench-a-${run}`, agent: 'operator', environment: 'prod' };
const smallNames = Array.from({ length: 20 }, (_, i) => `res_${i}`);
const before = await applyToKv(first.client, small, smallNames, APPLIES);
out(`apply→KV, 20 resources stored:      ${stats(before.propagation)}`);
out(`apply RPC, 20 resources stored:     ${stats(before.rpc)}`);
out(`  (load average ${load()})`);

// 2. Import RESOURCES resources in one tenant and environment as a restore would (version rows
// and KV entries in bulk: applying them one by one through FerretDB takes far longer than
// what is measured here), then start a fresh registry on them and List.
const big: Principal = { tenant: `bench-b-${run}`, agent: 'operator', environment: 'prod' };
const names = Array.from({ length: RESOURCES }, (_, i) => `res_${String(i).padStart(5, '0')}`);
const imported = performance.now();
const records: VersionRecord[] = names.map((name, i) => {
  const resource = validResource(
    descriptor(big.tenant, name, `imported ${name}`, labelsOf(i)),
    connectors,
  );
  return {
    tenant: big.tenant,
    environment: 'prod',
    name,
    version: 1,
    previousVersion: 0,
    change: 'applied',
    deleted: false,
    hash: descriptorHash(resource),
    descriptor: resource,
    createdAt: new Date(),
    createdBy: 'importer',
    rolledBackFrom: 0,
  };
});
for (let i = 0; i < records.length; i += 500) {
  const batch = records.slice(i, i + 500);
  await mongo.db
    .collection(COLLECTIONS.versions)
    .insertMany(batch.map((r) => toVersionDocument(versionId(r, 1), r)) as never[]);
}
await pool(records, 32, async (r) => {
  await parts.kv.put(`${r.tenant}.prod.${r.name}`, JSON.stringify(projectionValue(r)));
});
out(`imported ${RESOURCES} resources in ${((performance.now() - imported) / 1000).toFixed(1)} s`);

const coldStarted = performance.now();
const fresh = await startRegistry(options);
const coldMs = performance.now() - coldStarted;
const repair = await fresh.reconciler.runOnce();
out(
  `cold start on ${RESOURCES + smallNames.length} resources (catalog load): ${coldMs.toFixed(0)} ms; repaired ${repair.repaired}`,
);
const passStarted = performance.now();
await fresh.reconciler.runOnce();
out(`periodic reconcile pass: ${(performance.now() - passStarted).toFixed(0)} ms`);
const second = await serve(fresh);

const metadata = {
  authorization: `Bearer ${await issuePrincipalToken(keys, big, { ttlSeconds: 7200 })}`,
};
const matching = (labels: Record<string, string>) =>
  names.filter((_, i) =>
    Object.entries(labels).every(([k, v]) => labelsOf(i)[k as 'domain' | 'team'] === v),
  ).length;

async function timeList(
  label: string,
  request: Parameters<Client['list']>[0],
  expected: number,
): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < LIST_CALLS; i++) {
    const started = performance.now();
    const page = await second.client.list(request, { metadata });
    samples.push(performance.now() - started);
    if (page.resources.length !== expected)
      throw new Error(`${label}: ${page.resources.length} resources, expected ${expected}`);
  }
  out(`List ${label.padEnd(31)} ${stats(samples)}`);
}
await timeList('first page (50)', { pageSize: 50 }, Math.min(50, RESOURCES));
let middle = '';
for (let seenSoFar = 0; seenSoFar < RESOURCES / 2; seenSoFar += 500) {
  middle = (await second.client.list({ pageSize: 500, pageToken: middle }, { metadata }))
    .nextPageToken;
}
await timeList('a middle page (50)', { pageSize: 50, pageToken: middle }, 50);
await timeList(
  'label domain=d3 (50)',
  { pageSize: 50, labels: { domain: 'd3' } },
  Math.min(50, matching({ domain: 'd3' })),
);
await timeList(
  'labels domain+team (up to 500)',
  { pageSize: 500, labels: { domain: 'd3', team: 't0' } },
  Math.min(500, matching({ domain: 'd3', team: 't0' })),
);
const walk: number[] = [];
for (let k = 0; k < 10; k++) {
  const started = performance.now();
  let token = '';
  let total = 0;
  do {
    const page = await second.client.list({ pageSize: 500, pageToken: token }, { metadata });
    total += page.resources.length;
    token = page.nextPageToken;
  } while (token !== '');
  walk.push(performance.now() - started);
  if (total !== RESOURCES) throw new Error(`the walk saw ${total} resources`);
}
out(`List every page (500 each)          ${stats(walk)}`);

// 3. Apply → KV with RESOURCES stored.
const after = await applyToKv(second.client, big, names.slice(0, 50), Math.min(200, APPLIES));
out(`apply→KV, ${RESOURCES} resources stored:  ${stats(after.propagation)}`);
out(`apply RPC, ${RESOURCES} resources stored: ${stats(after.rpc)}`);
out(`  (load average ${load()})`);

watch.stop();
await second.stop();
await first.stop();
await parts.kv.destroy();
await bundlesKv.destroy();
await connectors.close();
await nc.drain();
await mongo.db.dropDatabase();
await mongo.close();
