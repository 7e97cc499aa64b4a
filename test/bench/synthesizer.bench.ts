/**
 * Synthesizer benchmark: ListTools over 10,000 resources (one tenant scope holding 2,000, the
 * rest spread over 4 tenants × 2 environments) with empty caches and with warm ones, with a
 * task (top 10) and without (every tool of the scope); the same listing through NATS; the
 * synthesis of a 200-field resource; and how long a descriptor change in KV takes to show in
 * the next listing. Real Cedar deciders from compiled bundles, a private nats-server (same
 * binary as deploy/local). It reports; it asserts nothing.
 *
 * Run: `npx tsx test/bench/synthesizer.bench.ts` (after `pnpm build`). Sizes:
 * BENCH_SYNTHESIZER_SCOPE (resources in the measured scope, default 2000),
 * BENCH_SYNTHESIZER_TOTAL (default 10000), BENCH_SYNTHESIZER_RUNS (cached runs, default 500),
 * BENCH_SYNTHESIZER_COLD (cold runs, default 20). `--smoke` (CI): 100 of 300 resources, a few runs.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  descriptorHash,
  generateIssuerKeys,
  issuePrincipalToken,
  renderTool,
} from '@tollgate/core';
import type { FieldSpec, PermissionSet, ResourceDescriptor } from '@tollgate/core';
import { buckets, createLogger, loadTokenVerifier, openBucket, resourceKey } from '@tollgate/kit';
import { compileBundle } from '@tollgate/policy';
import type { BundleInputs } from '@tollgate/policy';
import { TollgateClient } from '@tollgate/sdk';
import { headers as natsHeaders } from '@nats-io/transport-node';
import {
  Synthesizer,
  listToolsSubject,
  serveSynthesizerBus,
  startSynthesizer,
} from '../../services/synthesizer/src/index.js';
import type { ListToolsInput } from '../../services/synthesizer/src/index.js';
import { startNatsServer } from '../support/nats-server.js';
import type { NatsServer } from '../support/nats-server.js';
import { operationsOf, synthesize } from '@tollgate/kinds';

const env = (name: string, dflt: number): number => Number(process.env[name] ?? dflt);
const SMOKE = process.argv.includes('--smoke') || process.env['BENCH_SMOKE'] === '1';
const SCOPE = env('BENCH_SYNTHESIZER_SCOPE', SMOKE ? 100 : 2_000);
const TOTAL = env('BENCH_SYNTHESIZER_TOTAL', SMOKE ? 300 : 10_000);
const RUNS = env('BENCH_SYNTHESIZER_RUNS', SMOKE ? 10 : 500);
const COLD = env('BENCH_SYNTHESIZER_COLD', SMOKE ? 2 : 20);

/** Timings of one measured operation. */
export interface Stats {
  runs: number;
  p50: number;
  p99: number;
  mean: number;
  unit: 'us' | 'ms';
}

export interface SynthesizerBenchReport {
  resources: { total: number; measuredScope: number; scopes: number };
  setup: {
    catalogLoadMs: number;
    bundleCompileMs: number;
    bundleLoadMs: number;
    bundleBytes: number;
  };
  /** synthesizeTools on a 200-field resource, all operations and fields (5 tools). */
  synthesize200Fields: Stats;
  /** renderTool of those 5 tools into all 4 formats. */
  render200FieldsAllFormats: Stats;
  listTools: {
    /** With a task, top 10: fresh principal (no permission cache) and empty tool cache. */
    taskCold: Stats;
    /** With a task: permissions cached, tool cache emptied (synthesis + rendering only). */
    taskToolsCold: Stats;
    taskCached: Stats;
    /** Without a task: every tool of the scope. */
    allCold: Stats;
    allCached: Stats;
    /** With a task, through the agent SDK over NATS (auth, protobuf both ways), caches warm. */
    taskCachedNats: Stats;
    /** The same NATS request, reply bytes not decoded (server + transport only). */
    taskCachedNatsRaw: Stats;
    toolsPerTaskListing: number;
    toolsPerFullListing: number;
  };
  /** KV put of a changed descriptor → first ListTools that shows it. */
  hotReload: Stats;
}

const FIELD_TYPES: FieldSpec[] = [
  { type: 'keyword', filterable: true, returnable: true, aggregatable: true },
  { type: 'double', range: true, returnable: true, sortable: true, aggregatable: true },
  { type: 'date', range: true, returnable: true, sortable: true },
  { type: 'text', searchable: true, returnable: true },
  { type: 'long', filterable: true, range: true, returnable: true },
  { type: 'boolean', filterable: true, returnable: true },
];
const DOMAINS = [
  ['orders', 'Orders placed in the shop', '订单'],
  ['invoices', 'Invoices issued for orders', '发票'],
  ['customers', 'Customer accounts', '客户'],
  ['shipments', 'Parcels shipped with carrier and tracking number', '包裹'],
  ['payments', 'Card payments captured', '支付'],
  ['refunds', 'Money paid back to customers', '退款'],
  ['products', 'Product catalogue with prices', '商品'],
  ['inventory', 'Stock per warehouse', '库存'],
  ['reviews', 'Product reviews', '评价'],
  ['tickets', 'Support tickets', '工单'],
  ['sessions', 'Web sessions', '会话'],
  ['metrics', 'Service metrics', '指标'],
  ['campaigns', 'Marketing campaigns', '营销活动'],
  ['suppliers', 'Suppliers and purchase orders', '供应商'],
  ['employees', 'Staff and teams', '员工'],
] as const;
const REGIONS = ['eu', 'us', 'apac', 'latam', 'mena'];
const TASKS = [
  'find order 12345',
  '搜索 id 为 12345 的订单',
  'refunds paid back to customers last week',
  'customer accounts by country',
  'parcels shipped with which carrier',
  'stock per warehouse for a product',
];

function describeResource(tenant: string, environment: string, i: number): ResourceDescriptor {
  const [domain, en, zh] = DOMAINS[i % DOMAINS.length] ?? DOMAINS[0];
  const region = REGIONS[Math.floor(i / DOMAINS.length) % REGIONS.length] ?? 'eu';
  const fields: Record<string, FieldSpec> = {};
  for (let f = 0; f < 8; f++) {
    const spec = FIELD_TYPES[f % FIELD_TYPES.length] as FieldSpec;
    fields[f === 0 ? 'id' : `${domain}_f${f}`] = {
      ...spec,
      description: `${en}: attribute ${f} (${zh})`,
    };
  }
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: {
      name: `es_${domain}_${region}_${i}`,
      tenant,
      environment,
      description: `${en} in ${region.toUpperCase()}, partition ${i}. ${zh}`,
      labels: { domain },
    },
    spec: {
      type: 'elasticsearch',
      connection: { endpoint: 'http://es.internal:9200', credentialRef: 'env://ES_KEY' },
      target: { index: `${domain}_${i}` },
      schema: { fields },
      access: { allowedRoles: ['reader'], maxLimit: 100 },
    },
  } as ResourceDescriptor;
}

function publishedBytes(descriptor: ResourceDescriptor, version: number): Uint8Array {
  const { tenant, environment, name } = descriptor.metadata;
  return new TextEncoder().encode(
    JSON.stringify({
      tenant,
      environment,
      name,
      version,
      hash: descriptorHash(descriptor),
      descriptor,
      publishedAt: new Date().toISOString(),
    }),
  );
}

function stats(samples: number[], unit: 'us' | 'ms'): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (v: number) => Math.round(v * 100) / 100;
  return {
    runs: samples.length,
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    mean: round(samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length)),
    unit,
  };
}

function bearer(token: string) {
  const hdrs = natsHeaders();
  hdrs.set('authorization', `Bearer ${token}`);
  return hdrs;
}

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

async function timeMs(runs: number, fn: (i: number) => Promise<unknown>): Promise<Stats> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = nowMs();
    await fn(i);
    samples.push(nowMs() - start);
  }
  return stats(samples, 'ms');
}

function bench200Fields(): { synthesize: Stats; render: Stats } {
  const fields: Record<string, FieldSpec> = {};
  for (let f = 0; f < 200; f++) {
    fields[f === 0 ? 'id' : `field_${f}`] = {
      ...(FIELD_TYPES[f % FIELD_TYPES.length] as FieldSpec),
      description: `Attribute ${f}`,
    };
  }
  const resource = { ...describeResource('bench', 'prod', 0), version: 1 };
  resource.spec.schema.fields = fields;
  resource.spec.access = { allowedRoles: ['reader'], maxLimit: 100, readonly: false };
  const names = Object.keys(fields);
  const permissions: PermissionSet = {
    operations: ['search', 'get', 'count', 'aggregate', 'write'],
    visibleFields: names,
    filterableFields: names,
    limitCap: 100,
  };
  const measure = (runs: number, fn: () => unknown): Stats => {
    for (let i = 0; i < 20; i++) fn();
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = process.hrtime.bigint();
      fn();
      samples.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    return stats(samples, 'us');
  };
  const tools = synthesize(resource, permissions);
  return {
    synthesize: measure(SMOKE ? 20 : 300, () => synthesize(resource, permissions)),
    render: measure(SMOKE ? 20 : 300, () => {
      for (const tool of tools) {
        for (const format of ['json_schema', 'openai', 'anthropic', 'mcp'] as const)
          renderTool(tool, format);
      }
    }),
  };
}

/** Hot reload through the real sync path: KV put → watch → next listing. */
async function benchHotReload(nats: NatsServer, issuersFile: string): Promise<Stats> {
  const nc = await nats.connect('synthesizer-bench-reload');
  const logger = createLogger({ service: 'synthesizer-bench', level: 'silent' });
  const running = await startSynthesizer({
    nc,
    logger,
    verifier: await loadTokenVerifier(issuersFile),
  });
  const resources = await openBucket(nc, buckets.resources);
  const policies = await openBucket(nc, buckets.policyBundles);
  const tenant = 'reload';
  const base = describeResource(tenant, 'prod', 0);
  const compiled = compileBundle({
    tenant,
    version: 1,
    agents: [
      {
        apiVersion: 'tollgate.dev/v1',
        kind: 'Agent',
        metadata: { name: 'bot', tenant },
        spec: { roles: ['reader'] },
      },
    ],
    policies: [],
    resources: [{ descriptor: base, version: 1, operations: operationsOf(base) }],
  });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  await policies.put(tenant, JSON.stringify(compiled.bundle));
  const key = resourceKey(tenant, 'prod', base.metadata.name);
  const input: ListToolsInput = {
    principal: { tenant, agent: 'bot', environment: 'prod' },
    task: '',
    format: 'json_schema',
    topK: 0,
    sessionId: '',
  };
  const samples: number[] = [];
  for (let version = 1; version <= 30; version++) {
    const changed = { ...base, metadata: { ...base.metadata, description: `Revision ${version}` } };
    const start = nowMs();
    await resources.put(key, publishedBytes(changed, version));
    for (;;) {
      const tools = await running.synthesizer.listTools(input).catch(() => []);
      if (tools[0]?.resourceVersion === version) break;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    samples.push(nowMs() - start);
  }
  await running.stop();
  await nc.close();
  return stats(samples.slice(1), 'ms');
}

export async function runSynthesizerBench(): Promise<SynthesizerBenchReport> {
  const nats = await startNatsServer();
  const dir = await mkdtemp(join(tmpdir(), 'synthesizer-bench-'));
  try {
    const keys = await generateIssuerKeys('synthesizer-bench');
    const issuersFile = join(dir, 'issuers.json');
    await writeFile(issuersFile, JSON.stringify(keys));
    const logger = createLogger({ service: 'synthesizer-bench', level: 'silent' });
    const synthesizer = new Synthesizer({ logger });

    // 10,000 resources: the measured scope, then the rest over 4 tenants × 2 environments.
    const big = { tenant: 'big', environment: 'prod' };
    const descriptors: ResourceDescriptor[] = [];
    for (let i = 0; i < SCOPE; i++)
      descriptors.push(describeResource(big.tenant, big.environment, i));
    const others = TOTAL - SCOPE;
    for (let i = 0; i < others; i++) {
      const tenant = `spread${i % 4}`;
      const environment = Math.floor(i / 4) % 2 === 0 ? 'prod' : 'staging';
      descriptors.push(describeResource(tenant, environment, i));
    }
    let start = nowMs();
    for (const d of descriptors) {
      const { tenant, environment, name } = d.metadata;
      synthesizer.applyResource(resourceKey(tenant, environment, name), publishedBytes(d, 1));
    }
    const catalogLoadMs = Math.round(nowMs() - start);

    const cold = Math.max(COLD, 1);
    const inputs: BundleInputs = {
      tenant: big.tenant,
      version: 1,
      agents: Array.from({ length: cold * 3 + 2 }, (_, i) => ({
        apiVersion: 'tollgate.dev/v1' as const,
        kind: 'Agent' as const,
        metadata: { name: `agent_${i}`, tenant: big.tenant },
        spec: { roles: ['reader'] },
      })),
      policies: [],
      resources: descriptors
        .slice(0, SCOPE)
        .map((descriptor) => ({ descriptor, version: 1, operations: operationsOf(descriptor) })),
    };
    start = nowMs();
    const compiled = compileBundle(inputs);
    const bundleCompileMs = Math.round(nowMs() - start);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems.slice(0, 3)));
    const bundleBytes = new TextEncoder().encode(JSON.stringify(compiled.bundle));
    start = nowMs();
    // A tenant's bundle is held on arrival and compiled when the tenant is first asked for
    // (`hash` asks): the load time is both together.
    const held = synthesizer.applyBundle(big.tenant, bundleBytes);
    const loadedHash = synthesizer.bundles.hash(big.tenant);
    const bundleLoadMs = Math.round(nowMs() - start);
    if (loadedHash === undefined) throw new Error(`bundle not loaded: ${JSON.stringify(held)}`);

    const agentNo = { next: 0 };
    const listing = (task: string, agent = 'agent_0'): ListToolsInput => ({
      principal: { tenant: big.tenant, agent, environment: big.environment },
      task,
      format: 'openai',
      topK: 0,
      sessionId: '',
    });
    const freshAgent = () => `agent_${++agentNo.next}`;

    const taskCold = await timeMs(cold, async (i) => {
      synthesizer.tools.clear();
      await synthesizer.listTools(listing(TASKS[i % TASKS.length] as string, freshAgent()));
    });
    // Warm the permissions of agent_0 for every task, then drop only the tool sets.
    for (const task of TASKS) await synthesizer.listTools(listing(task));
    const taskToolsCold = await timeMs(cold, async (i) => {
      synthesizer.tools.clear();
      await synthesizer.listTools(listing(TASKS[i % TASKS.length] as string));
    });
    const taskCached = await timeMs(RUNS, (i) =>
      synthesizer.listTools(listing(TASKS[i % TASKS.length] as string)),
    );
    const toolsPerTaskListing = (await synthesizer.listTools(listing(TASKS[0] as string))).length;
    const allCold = await timeMs(Math.min(3, cold), async () => {
      synthesizer.tools.clear();
      await synthesizer.listTools(listing('', freshAgent()));
    });
    await synthesizer.listTools(listing(''));
    const allCached = await timeMs(Math.min(50, RUNS), () => synthesizer.listTools(listing('')));
    const toolsPerFullListing = (await synthesizer.listTools(listing(''))).length;

    // The same warm listing through NATS: request, authentication, protobuf both ways.
    const nc = await nats.connect('synthesizer-bench');
    const verifier = await loadTokenVerifier(issuersFile);
    const subs = serveSynthesizerBus(nc, { synthesizer, verifier, logger, queue: 'synthesizer' });
    const token = await issuePrincipalToken(keys, listing('').principal);
    const agent = TollgateClient.over(nc, { token });
    // The request bytes of `{ task, format: OPENAI }`: field 1 (string), field 2 (varint 2).
    const requestBytes = TASKS.map((task) => {
      const text = new TextEncoder().encode(task);
      return Uint8Array.from([0x0a, text.length, ...text, 0x10, 2]);
    });
    const taskCachedNatsRaw = await timeMs(RUNS, async (i) => {
      const reply = await nc.request(
        listToolsSubject,
        requestBytes[i % requestBytes.length] as Uint8Array,
        { timeout: 30_000, headers: bearer(token) },
      );
      if (reply.headers?.get('tollgate-error'))
        throw new Error(String(reply.headers.get('tollgate-error')));
    });
    const taskCachedNats = await timeMs(RUNS, (i) =>
      agent.listTools({ task: TASKS[i % TASKS.length] as string, format: 'openai' }),
    );
    for (const sub of subs) sub.unsubscribe();
    await nc.close();

    const fields = bench200Fields();
    const hotReload = await benchHotReload(nats, issuersFile);
    return {
      resources: { total: descriptors.length, measuredScope: SCOPE, scopes: 9 },
      setup: { catalogLoadMs, bundleCompileMs, bundleLoadMs, bundleBytes: bundleBytes.length },
      synthesize200Fields: fields.synthesize,
      render200FieldsAllFormats: fields.render,
      listTools: {
        taskCold,
        taskToolsCold,
        taskCached,
        allCold,
        allCached,
        taskCachedNats,
        taskCachedNatsRaw,
        toolsPerTaskListing,
        toolsPerFullListing,
      },
      hotReload,
    };
  } finally {
    await nats.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

function line(name: string, s: Stats): string {
  return `${name.padEnd(64)} p50 ${String(s.p50).padStart(9)} ${s.unit}  p99 ${String(s.p99).padStart(9)} ${s.unit}  (${s.runs} runs)`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await runSynthesizerBench();
  const l = report.listTools;
  const out = [
    `resources: ${report.resources.total} (measured scope ${report.resources.measuredScope})`,
    `setup: catalog ${report.setup.catalogLoadMs} ms, bundle compile ${report.setup.bundleCompileMs} ms, bundle load ${report.setup.bundleLoadMs} ms (${report.setup.bundleBytes} bytes)`,
    line('synthesize 200-field resource (5 tools)', report.synthesize200Fields),
    line('render those 5 tools in 4 formats', report.render200FieldsAllFormats),
    line(`ListTools task, top 10, cold (fresh principal, no tools)`, l.taskCold),
    line('ListTools task, top 10, permissions warm, tools cold', l.taskToolsCold),
    line(`ListTools task, top 10, cached (${l.toolsPerTaskListing} tools)`, l.taskCached),
    line('ListTools task, top 10, cached, NATS request, reply undecoded', l.taskCachedNatsRaw),
    line('ListTools task, top 10, cached, agent SDK over NATS', l.taskCachedNats),
    line(`ListTools no task, cold (all ${l.toolsPerFullListing} tools)`, l.allCold),
    line('ListTools no task, cached', l.allCached),
    line('hot reload: KV put → visible in ListTools', report.hotReload),
  ];
  process.stdout.write(`${out.join('\n')}\n${JSON.stringify(report)}\n`);
}
