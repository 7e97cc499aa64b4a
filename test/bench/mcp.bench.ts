/**
 * MCP benchmark: the same lookup (order "12345") straight to Elasticsearch, through the agent
 * SDK over NATS, and as an MCP `tools/call` over Streamable HTTP — with the official v2 client on
 * 2026-07-28 and the v1 client on 2025-era HTTP — sequentially and from 32 concurrent callers,
 * in one run, alternating in blocks so every path sees the same machine load. The executor, the
 * synthesizer and the MCP front end run as their own processes on a private nats-server; every
 * call is decided, validated, shaped and audited (JetStream) before it answers.
 *
 * Run: `npx tsx test/bench/mcp.bench.ts` (after `pnpm build`, with Elasticsearch up);
 * `--smoke` for a short run (CI). Sizes: BENCH_MCP_SEQUENTIAL (default 400), BENCH_MCP_CONCURRENT
 * (calls per caller, default 20). It reports; it asserts nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client as EsClient } from '@elastic/elasticsearch';
import { Kvm } from '@nats-io/kv';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { descriptorHash, generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import type { CompiledRequest, PublishedResource } from '@tollgate/core';
import { buckets, resourceKey } from '@tollgate/kit';
import { LocalDecider, compileBundle } from '@tollgate/policy';
import { elasticsearchConnector } from '@tollgate/connector-elasticsearch';
import type { EsSearchRequest } from '@tollgate/connector-elasticsearch';
import { TollgateClient } from '@tollgate/sdk';
import { ordersAgents, ordersPolicy, ordersResource, seedOrders } from '../fixtures/orders.js';
import { startNatsServer } from '../support/nats-server.js';
import { startService } from '../support/process.js';
import type { RunningService } from '../support/process.js';
import { operationsOf } from '@tollgate/kinds';

const SMOKE = process.argv.includes('--smoke');
const ES_URL = process.env['TOLLGATE_ES_URL'] ?? 'http://127.0.0.1:9200';
const INDEX = 'tollgate_fixture_orders';
const SEQUENTIAL = SMOKE ? 20 : Number(process.env['BENCH_MCP_SEQUENTIAL'] ?? 400);
const PER_CALLER = SMOKE ? 2 : Number(process.env['BENCH_MCP_CONCURRENT'] ?? 20);
const CALLERS = 32;
const ROUNDS = SMOKE ? 2 : 8;
/** Ports of the processes this benchmark starts (the MCP block). */
const PORTS = { mcpHttp: 23070, executor: 23071, synthesizer: 23072, mcpGrpc: 23073 };

interface LatencyStats {
  calls: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  throughput: number;
}

type Way = 'direct' | 'nats_sdk' | 'mcp_2026' | 'mcp_2025';
const WAYS: Way[] = ['direct', 'nats_sdk', 'mcp_2026', 'mcp_2025'];

export interface McpBenchReport {
  sequential: Record<Way, LatencyStats>;
  concurrent32: Record<Way, LatencyStats>;
  /** p50 and p99 of each way over direct, and MCP over the NATS SDK. */
  ratios: Record<'sequential' | 'concurrent32', Record<string, { p50: number; p99: number }>>;
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
    meanMs: round(samples.reduce((s, x) => s + x, 0) / Math.max(1, samples.length)),
    throughput: Math.round((samples.length / wallMs) * 1000),
  };
}

/** `callers` loops, each with its own caller, of `perCaller` calls. */
async function block(
  callers: Array<() => Promise<void>>,
  perCaller: number,
  samples: number[],
): Promise<number> {
  const started = performance.now();
  await Promise.all(
    callers.map(async (once) => {
      for (let i = 0; i < perCaller; i++) {
        const t = performance.now();
        await once();
        samples.push(performance.now() - t);
      }
    }),
  );
  return performance.now() - started;
}

async function sideBySide(
  ways: Record<Way, Array<() => Promise<void>>>,
  total: number,
): Promise<Record<Way, LatencyStats>> {
  const perRound = Math.max(1, Math.round(total / ROUNDS));
  const samples = Object.fromEntries(WAYS.map((w) => [w, [] as number[]])) as Record<Way, number[]>;
  const wall = Object.fromEntries(WAYS.map((w) => [w, 0])) as Record<Way, number>;
  for (let round = 0; round < ROUNDS; round++) {
    for (const way of WAYS) wall[way] += await block(ways[way], perRound, samples[way]);
  }
  return Object.fromEntries(WAYS.map((w) => [w, stats(samples[w], wall[w])])) as Record<
    Way,
    LatencyStats
  >;
}

function ratiosOf(s: Record<Way, LatencyStats>): Record<string, { p50: number; p99: number }> {
  const r = (a: LatencyStats, b: LatencyStats) => ({
    p50: Math.round((a.p50Ms / b.p50Ms) * 100) / 100,
    p99: Math.round((a.p99Ms / b.p99Ms) * 100) / 100,
  });
  return {
    'nats_sdk/direct': r(s.nats_sdk, s.direct),
    'mcp_2026/direct': r(s.mcp_2026, s.direct),
    'mcp_2025/direct': r(s.mcp_2025, s.direct),
    'mcp_2026/nats_sdk': r(s.mcp_2026, s.nats_sdk),
    'mcp_2025/nats_sdk': r(s.mcp_2025, s.nats_sdk),
  };
}

export async function runMcpBench(): Promise<McpBenchReport> {
  const es = new EsClient({ node: ES_URL });
  await seedOrders(es, INDEX);
  const nats = await startNatsServer();
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-mcp-bench-'));
  const nc = await nats.connect('mcp-bench');
  const services: RunningService[] = [];
  const closers: Array<() => Promise<void>> = [];
  try {
    const keys = await generateIssuerKeys('tollgate-bench');
    const issuerFile = join(dir, 'issuer.json');
    await writeFile(issuerFile, JSON.stringify(keys), { mode: 0o600 });
    const descriptor = ordersResource({ endpoint: ES_URL, index: INDEX });
    const bundle = compileBundle({
      tenant: 'team-a',
      version: 1,
      agents: ordersAgents(),
      policies: [ordersPolicy()],
      resources: [{ version: 1, descriptor, operations: operationsOf(descriptor) }],
    });
    if (!bundle.ok) throw new Error('orders bundle does not compile');
    const published: PublishedResource = {
      tenant: 'team-a',
      environment: 'prod',
      name: 'es_orders',
      version: 1,
      hash: descriptorHash(descriptor),
      descriptor,
      publishedAt: new Date().toISOString(),
    };
    const kvm = new Kvm(nc);
    await (
      await kvm.create(buckets.resources)
    ).put(resourceKey('team-a', 'prod', 'es_orders'), JSON.stringify(published));
    await (await kvm.create(buckets.policyBundles)).put('team-a', JSON.stringify(bundle.bundle));
    const common = {
      ...nats.env,
      TOLLGATE_TRUSTED_ISSUERS_FILE: issuerFile,
      TOLLGATE_LOG_LEVEL: 'info',
    };
    const start = async (name: string, env: Record<string, string>) => {
      const service = startService(name, { ...common, ...env });
      services.push(service);
      await service.waitForLog((l) => l.msg === 'ready', 60_000);
    };
    await start('executor', {
      TOLLGATE_EXECUTOR_GRPC_ADDR: `127.0.0.1:${PORTS.executor}`,
      TOLLGATE_CURSOR_KEY: 'bench-cursor-key',
    });
    await start('synthesizer', {
      TOLLGATE_SYNTHESIZER_GRPC_ADDR: `127.0.0.1:${PORTS.synthesizer}`,
    });
    await start('mcp', {
      TOLLGATE_MCP_GRPC_ADDR: `127.0.0.1:${PORTS.mcpGrpc}`,
      TOLLGATE_MCP_HTTP_ADDR: `127.0.0.1:${PORTS.mcpHttp}`,
      TOLLGATE_MCP_ISSUER_KEY_FILE: issuerFile,
      TOLLGATE_MCP_RATE_LIMIT_PER_MINUTE: '0',
      TOLLGATE_MCP_SESSION_KEY: 'bench-session-key',
    });
    const url = new URL(`http://127.0.0.1:${PORTS.mcpHttp}/mcp`);
    const token = await issuePrincipalToken(keys, principal, { ttlSeconds: 3_600 });
    const requestInit = { headers: { authorization: `Bearer ${token}` } };

    const sdk = TollgateClient.over(nc, { token });
    const sdkTool = (await sdk.listTools()).find((t) => t.name === 'es_orders_search')!;
    // The exact query the executor sends for this call.
    const permissions = LocalDecider.fromBundle(bundle.bundle).permissionSet(
      principal,
      'es_orders',
    );
    const native = (
      elasticsearchConnector.compile('search', args, {
        descriptor,
        permissions,
        principal: { tenant: principal.tenant, agent: principal.agent },
        cursorKey: 'bench-cursor-key',
      }) as CompiledRequest<EsSearchRequest>
    ).native;
    const direct = async () => {
      const body = await es.search({ index: native.index, ...native.body } as never);
      if (body.hits.hits.length !== 1) throw new Error('direct query did not find order 12345');
    };
    const viaSdk = async () => {
      const outcome = await sdk.call(sdkTool, args);
      if (outcome.status !== 'ok') throw new Error(`sdk call failed: ${JSON.stringify(outcome)}`);
    };
    const mcpCaller = async (era: '2026' | '2025'): Promise<() => Promise<void>> => {
      let call: () => Promise<{ structuredContent?: { status?: unknown } }>;
      if (era === '2026') {
        const client = new ClientV2(
          { name: 'bench', version: '2' },
          { versionNegotiation: { mode: { pin: '2026-07-28' } } },
        );
        await client.connect(new TransportV2(url, { requestInit }));
        closers.push(() => client.close());
        call = () => client.callTool({ name: 'es_orders_search', arguments: args }) as never;
      } else {
        const client = new ClientV1({ name: 'bench', version: '1' });
        await client.connect(new TransportV1(url, { requestInit }));
        closers.push(() => client.close());
        call = () => client.callTool({ name: 'es_orders_search', arguments: args }) as never;
      }
      return async () => {
        const result = await call();
        if (result.structuredContent?.status !== 'ok')
          throw new Error(`mcp call failed: ${JSON.stringify(result)}`);
      };
    };
    const one = {
      direct: [direct],
      nats_sdk: [viaSdk],
      mcp_2026: [await mcpCaller('2026')],
      mcp_2025: [await mcpCaller('2025')],
    };
    const many = {
      direct: Array.from({ length: CALLERS }, () => direct),
      nats_sdk: Array.from({ length: CALLERS }, () => viaSdk),
      mcp_2026: await Promise.all(Array.from({ length: CALLERS }, () => mcpCaller('2026'))),
      mcp_2025: await Promise.all(Array.from({ length: CALLERS }, () => mcpCaller('2025'))),
    };
    for (const way of WAYS) await block(one[way], SMOKE ? 3 : 50, []);
    const sequential = await sideBySide(one, SEQUENTIAL);
    const concurrent32 = await sideBySide(many, PER_CALLER);
    return {
      sequential,
      concurrent32,
      ratios: { sequential: ratiosOf(sequential), concurrent32: ratiosOf(concurrent32) },
    };
  } finally {
    for (const close of closers) await close().catch(() => undefined);
    for (const service of services.reverse()) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await nc.close();
    await nats.dispose();
    await es.close();
    await elasticsearchConnector.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function print(report: McpBenchReport): void {
  const row = (name: string, s: LatencyStats) =>
    `  ${name.padEnd(9)} p50 ${s.p50Ms.toFixed(2).padStart(7)} ms   p99 ${s.p99Ms.toFixed(2).padStart(7)} ms   mean ${s.meanMs.toFixed(2).padStart(7)} ms   ${String(s.throughput).padStart(5)} calls/s   (${s.calls} calls)`;
  const lines = [
    'term query "order 12345": Elasticsearch direct vs agent SDK → NATS vs MCP tools/call over Streamable HTTP',
  ];
  for (const [title, part] of [
    ['sequential (1 caller)', 'sequential'],
    [`concurrent (${CALLERS} callers)`, 'concurrent32'],
  ] as const) {
    lines.push(title);
    for (const way of WAYS) lines.push(row(way, report[part][way]));
    for (const [name, r] of Object.entries(report.ratios[part]))
      lines.push(`  ratio ${name.padEnd(18)} p50 ${r.p50}×   p99 ${r.p99}×`);
  }
  process.stdout.write(`${lines.join('\n')}\n${JSON.stringify(report)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  print(await runMcpBench());
}
