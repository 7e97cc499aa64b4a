/**
 * Executor benchmark: the same term query (order "12345", pinned to the caller's tenant) sent
 * straight to Elasticsearch with `@elastic/elasticsearch`, and through Tollgate — the agent SDK
 * (`@tollgate/sdk`) → NATS → the executor as its own process → Elasticsearch, with the audit
 * event stored by JetStream before every answer — sequentially and from 32 concurrent callers,
 * in one run; plus the in-process cost of the pure stages (the executor's decide and validate,
 * the connector's compile and shape).
 *
 * NATS is a private nats-server (same binary as deploy/local) so no other executor shares the
 * queue group. Direct and Tollgate calls alternate in blocks so both see the same machine load.
 * Run: `npx tsx test/bench/executor.bench.ts` (after `pnpm build`). It reports; it
 * asserts nothing. Sizes: BENCH_EXECUTOR_SEQUENTIAL (default 1000), BENCH_EXECUTOR_CONCURRENT
 * (calls per caller, default 60), BENCH_EXECUTOR_PIPELINE (default 5000). `--smoke` (CI): a
 * few calls of each kind, to show every path still works; its numbers mean little.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@elastic/elasticsearch';
import { Kvm } from '@nats-io/kv';
import { elasticsearchConnector } from '@tollgate/connector-elasticsearch';
import type { EsSearchRequest } from '@tollgate/connector-elasticsearch';
import {
  TokenVerifier,
  descriptorHash,
  generateIssuerKeys,
  issuePrincipalToken,
} from '@tollgate/core';
import type {
  CompiledRequest,
  PermissionSet,
  PublishedResource,
  ResourceDescriptor,
} from '@tollgate/core';
import { buckets, createLogger, resourceKey } from '@tollgate/kit';
import { LocalDecider, compileBundle } from '@tollgate/policy';
import type { PolicyBundle } from '@tollgate/policy';
import { TollgateClient } from '@tollgate/sdk';
import type { Tool } from '@tollgate/sdk';
import { PolicyDeciders, decideCall, validateCall } from '../../services/executor/src/index.js';
import { startNatsServer } from '../support/nats-server.js';
import { ordersAgents, ordersPolicy, ordersResource, seedOrders } from '../fixtures/orders.js';
import { startService } from '../support/process.js';
import { operationsOf, synthesize, validatorCache } from '@tollgate/kinds';
import { executorStages, wireCosts } from './executor-stages.js';
import type { Breakdown } from './executor-stages.js';

const ES_URL = process.env['TOLLGATE_ES_URL'] ?? 'http://127.0.0.1:9200';
const INDEX = 'tollgate_fixture_orders';
const SMOKE = process.argv.includes('--smoke') || process.env['BENCH_SMOKE'] === '1';
const SEQUENTIAL = Number(process.env['BENCH_EXECUTOR_SEQUENTIAL'] ?? (SMOKE ? 40 : 1_000));
const PER_CALLER = Number(process.env['BENCH_EXECUTOR_CONCURRENT'] ?? (SMOKE ? 4 : 60));
const PIPELINE_RUNS = Number(process.env['BENCH_EXECUTOR_PIPELINE'] ?? (SMOKE ? 200 : 5_000));
const CALLERS = 32;
const WARMUP = SMOKE ? 20 : 200;
/** Sequential calls to a debug-logging executor for the per-stage breakdown. */
const STAGE_CALLS = SMOKE ? 20 : 300;
/** Alternating blocks per comparison. */
const ROUNDS = SMOKE ? 2 : 10;

/** Latencies of one way of calling, milliseconds. */
export interface LatencyStats {
  calls: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** Calls per second over the whole run. */
  throughput: number;
}

export interface ExecutorBenchReport {
  sequential: { direct: LatencyStats; tollgate: LatencyStats; p50Ratio: number; p99Ratio: number };
  concurrent32: {
    direct: LatencyStats;
    tollgate: LatencyStats;
    p50Ratio: number;
    p99Ratio: number;
  };
  /** In-process cost of the pure stages per call, microseconds. */
  pipelineUs: { decide: number; validate: number; compile: number; shape: number; total: number };
  /**
   * One sequential call taken apart (medians, ms): as the SDK saw it, the same query sent
   * directly between those calls, as the executor timed its stages (debug logging on), and the
   * transport pieces measured alone on the same server.
   */
  stages: { clientP50Ms: number; directP50Ms: number; executor: Breakdown; wire: Breakdown };
}

const principal = { tenant: 'team-a', agent: 'support_bot', environment: 'prod' };
const args = { filters: [{ field: 'id', op: 'eq', value: '12345' }] };

function stats(samples: number[], wallMs: number): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    calls: samples.length,
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
    meanMs: round(samples.reduce((s, x) => s + x, 0) / samples.length),
    throughput: Math.round((samples.length / wallMs) * 1000),
  };
}

/** One block of calls: `callers` concurrent loops of `perCaller` calls each. */
async function block(
  callers: number,
  perCaller: number,
  once: () => Promise<void>,
  samples: number[],
): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (let i = 0; i < perCaller; i++) {
        const t = performance.now();
        await once();
        samples.push(performance.now() - t);
      }
    }),
  );
  return performance.now() - started;
}

/**
 * Direct and through Tollgate, alternating in ROUNDS blocks so both see the same machine (a
 * small, shared one whose load drifts), with `total` calls per caller for each.
 */
async function sideBySide(
  callers: number,
  total: number,
  direct: () => Promise<void>,
  through: () => Promise<void>,
): Promise<[LatencyStats, LatencyStats]> {
  const perRound = Math.max(1, Math.round(total / ROUNDS));
  const samples: [number[], number[]] = [[], []];
  const wall: [number, number] = [0, 0];
  for (let round = 0; round < ROUNDS; round++) {
    wall[0] += await block(callers, perRound, direct, samples[0]);
    wall[1] += await block(callers, perRound, through, samples[1]);
  }
  return [stats(samples[0], wall[0]!), stats(samples[1], wall[1]!)];
}

/** The permission set, tool and compiled request the executor uses for this call. */
function setting(descriptor: ResourceDescriptor, decider: LocalDecider) {
  const permissions: PermissionSet = decider.permissionSet(principal, 'es_orders');
  const tool = synthesize({ ...descriptor, version: 1 }, permissions).find(
    (t) => t.name === 'es_orders_search',
  )!;
  const compiled = elasticsearchConnector.compile('search', args, {
    descriptor,
    permissions,
    principal: { tenant: principal.tenant, agent: principal.agent },
    cursorKey: 'bench-cursor-key',
  }) as CompiledRequest<EsSearchRequest>;
  return { permissions, tool, compiled };
}

/** The executor's own decide and validate stages, and the connector's compile and shape, in process. */
function pipelineCost(published: PublishedResource, bundle: PolicyBundle, upstreamBody: unknown) {
  const deciders = new PolicyDeciders(createLogger({ service: 'executor-bench', level: 'silent' }));
  deciders.apply('team-a', new TextEncoder().encode(JSON.stringify(bundle)));
  const validators = validatorCache();
  const { descriptor } = published;
  const time = (fn: () => void): number => {
    for (let i = 0; i < 200; i++) fn();
    const t = performance.now();
    for (let i = 0; i < PIPELINE_RUNS; i++) fn();
    return Math.round((((performance.now() - t) * 1000) / PIPELINE_RUNS) * 10) / 10;
  };
  let permissions: PermissionSet | undefined;
  let compiled: CompiledRequest | undefined;
  const decide = time(() => {
    permissions = decideCall(
      deciders,
      principal,
      published,
      'search',
      args,
      Date.now(),
    ).permissions;
  });
  const validate = time(() => {
    validateCall(validators, published, permissions!, 'es_orders_search', '', args);
  });
  const compile = time(() => {
    compiled = elasticsearchConnector.compile('search', args, {
      descriptor,
      permissions: permissions!,
      principal: { tenant: principal.tenant, agent: principal.agent },
      cursorKey: 'bench-cursor-key',
    });
  });
  const upstream = { status: 200, body: upstreamBody, attempts: 1, latencyMs: 1 };
  const shape = time(() => {
    elasticsearchConnector.shape('search', upstream, {
      descriptor,
      permissions: permissions!,
      request: compiled!,
      maxBytes: 32_768,
    });
  });
  return {
    decide,
    validate,
    compile,
    shape,
    total: Math.round((decide + validate + compile + shape) * 10) / 10,
  };
}

/** Ready once a call succeeds (the executor loads resources and bundles first). */
async function untilAnswered(through: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await through();
      return;
    } catch (err) {
      if (attempt > 100) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

export async function runExecutorBench(): Promise<ExecutorBenchReport> {
  const es = new Client({ node: ES_URL });
  await seedOrders(es, INDEX);
  const nats = await startNatsServer();
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-bench-'));
  const nc = await nats.connect('executor-bench');
  const executor = { value: undefined as ReturnType<typeof startService> | undefined };
  try {
    const keys = await generateIssuerKeys('tollgate-bench');
    await writeFile(join(dir, 'issuer.json'), JSON.stringify(keys));
    const descriptor = ordersResource({ endpoint: ES_URL, index: INDEX });
    const compiledBundle = compileBundle({
      tenant: 'team-a',
      version: 1,
      agents: ordersAgents(),
      policies: [ordersPolicy()],
      resources: [{ version: 1, descriptor, operations: operationsOf(descriptor) }],
    });
    if (!compiledBundle.ok) throw new Error('orders bundle does not compile');
    const kvm = new Kvm(nc);
    const published: PublishedResource = {
      tenant: 'team-a',
      environment: 'prod',
      name: 'es_orders',
      version: 1,
      hash: descriptorHash(descriptor),
      descriptor,
      publishedAt: new Date().toISOString(),
    };
    await (
      await kvm.create(buckets.resources)
    ).put(resourceKey('team-a', 'prod', 'es_orders'), JSON.stringify(published));
    await (
      await kvm.create(buckets.policyBundles)
    ).put('team-a', JSON.stringify(compiledBundle.bundle));
    const executorEnv = {
      ...nats.env,
      TOLLGATE_TRUSTED_ISSUERS_FILE: join(dir, 'issuer.json'),
      TOLLGATE_EXECUTOR_GRPC_ADDR: '127.0.0.1:0',
      TOLLGATE_CURSOR_KEY: 'bench-cursor-key',
      TOLLGATE_LOG_LEVEL: 'info',
    };
    executor.value = startService('executor', executorEnv);
    await executor.value.waitForLog((l) => l.msg === 'ready', 60_000);

    const decider = LocalDecider.fromBundle(compiledBundle.bundle);
    const { tool, compiled } = setting(descriptor, decider);
    const sdkTool: Tool = {
      name: tool.name,
      description: tool.description,
      version: tool.version,
      resource: 'es_orders',
      resourceVersion: 1,
      resourceKind: 'elasticsearch',
      operation: 'search',
      inputSchema: tool.inputSchema,
      format: 'json_schema',
      rendering: tool.inputSchema,
      callSubject: 'tollgate.v1.call.elasticsearch.es_orders',
    };
    const client = TollgateClient.over(nc, {
      token: await issuePrincipalToken(keys, principal, { ttlSeconds: 3_600 }),
    });
    const native = compiled.native;
    const direct = async () => {
      const body = await es.search({ index: native.index, ...native.body } as never);
      if (body.hits.hits.length !== 1) throw new Error('direct query did not find order 12345');
    };
    const through = async () => {
      const outcome = await client.call(sdkTool, args);
      if (outcome.status !== 'ok') throw new Error(`call failed: ${JSON.stringify(outcome)}`);
    };
    await untilAnswered(through);
    await block(4, WARMUP / 4, direct, []);
    await block(4, WARMUP / 4, through, []);

    const ratios = (d: LatencyStats, t: LatencyStats) => ({
      direct: d,
      tollgate: t,
      p50Ratio: Math.round((t.p50Ms / d.p50Ms) * 100) / 100,
      p99Ratio: Math.round((t.p99Ms / d.p99Ms) * 100) / 100,
    });
    const [seqDirect, seqThrough] = await sideBySide(1, SEQUENTIAL, direct, through);
    const [conDirect, conThrough] = await sideBySide(CALLERS, PER_CALLER, direct, through);
    const upstreamBody = await es.search({ index: native.index, ...native.body } as never);
    const pipelineUs = pipelineCost(published, compiledBundle.bundle, upstreamBody);

    // The breakdown: the same executor with debug logging, which times each stage of a call.
    executor.value.child.kill('SIGTERM');
    await executor.value.exited;
    executor.value = startService('executor', { ...executorEnv, TOLLGATE_LOG_LEVEL: 'debug' });
    await executor.value.waitForLog((l) => l.msg === 'ready', 60_000);
    await untilAnswered(through);
    await block(1, WARMUP / 4, through, []);
    const answered = executor.value.lines.length;
    // The same query sent directly, interleaved call by call, so the executor's execute stage
    // is read against what Elasticsearch takes at that very moment.
    const clientSamples: number[] = [];
    const directSamples: number[] = [];
    for (let i = 0; i < STAGE_CALLS; i++) {
      let t = performance.now();
      await direct();
      directSamples.push(performance.now() - t);
      t = performance.now();
      await through();
      clientSamples.push(performance.now() - t);
    }
    const other = await nats.connect('executor-bench-echo');
    const wire = await wireCosts(
      nc,
      other,
      {
        verifier: await TokenVerifier.create([{ issuer: keys.issuer, keys: [keys.publicJwk] }]),
        token: await issuePrincipalToken(keys, principal, { ttlSeconds: 3_600 }),
      },
      STAGE_CALLS,
    );
    await other.close();
    return {
      sequential: ratios(seqDirect, seqThrough),
      concurrent32: ratios(conDirect, conThrough),
      pipelineUs,
      stages: {
        clientP50Ms: stats(clientSamples, 1).p50Ms,
        directP50Ms: stats(directSamples, 1).p50Ms,
        executor: executorStages(executor.value.lines.slice(answered)),
        wire,
      },
    };
  } finally {
    if (executor.value) {
      executor.value.child.kill('SIGTERM');
      await executor.value.exited;
    }
    await nc.close();
    await nats.dispose();
    await es.close();
    await elasticsearchConnector.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function print(report: ExecutorBenchReport): void {
  const row = (name: string, s: LatencyStats) =>
    `  ${name.padEnd(9)} p50 ${s.p50Ms.toFixed(2).padStart(7)} ms   p99 ${s.p99Ms.toFixed(2).padStart(7)} ms   mean ${s.meanMs.toFixed(2).padStart(7)} ms   ${String(s.throughput).padStart(5)} calls/s   (${s.calls} calls)`;
  const lines = [
    'term query "order 12345": @elastic/elasticsearch direct vs agent SDK → NATS → executor → Elasticsearch',
    'sequential (1 caller)',
    row('direct', report.sequential.direct),
    row('tollgate', report.sequential.tollgate),
    `  ratio     p50 ${report.sequential.p50Ratio}×   p99 ${report.sequential.p99Ratio}×`,
    `concurrent (${CALLERS} callers)`,
    row('direct', report.concurrent32.direct),
    row('tollgate', report.concurrent32.tollgate),
    `  ratio     p50 ${report.concurrent32.p50Ratio}×   p99 ${report.concurrent32.p99Ratio}×`,
    `in-process pipeline per call: decide ${report.pipelineUs.decide} µs + validate ${report.pipelineUs.validate} µs + compile ${report.pipelineUs.compile} µs + shape ${report.pipelineUs.shape} µs = ${report.pipelineUs.total} µs`,
    `one sequential call, medians (executor logging at debug): ${report.stages.clientP50Ms} ms as the SDK sees it, ${report.stages.directP50Ms} ms for the same query sent directly between those calls`,
    ...Object.entries(report.stages.executor).map(
      ([k, v]) => `  executor ${k.padEnd(44)} ${v.toFixed(3).padStart(8)} ms`,
    ),
    ...Object.entries(report.stages.wire).map(
      ([k, v]) => `  alone    ${k.padEnd(44)} ${v.toFixed(3).padStart(8)} ms`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n${JSON.stringify(report)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  print(await runExecutorBench());
}
