/**
 * SQL benchmark: the same primary-key lookup and the same filtered page (status = paid for one
 * tenant, ordered by id, 20 rows) on `shop.orders` (100,000 rows), in one run:
 * - direct: the statement straight through `pg` (a pool, a prepared-free parameterized query);
 * - connector: Tollgate's postgres connector in process (compile → execute → shape: read-only
 *   session, row filter, redaction, caps) — the executor and NATS are not in this path yet;
 * - toolbox: MCP Toolbox for Databases (`@toolbox-sdk/server`, its real binary) serving a
 *   `postgres-sql` tool with the very statement the connector compiled, called over MCP HTTP.
 * Sequentially and from 32 concurrent callers; blocks alternate so all see the same load. It
 * reports p50/p99 and ratios; it asserts nothing. BENCH_SMOKE=1 (CI) runs a few calls only.
 * Sizes: BENCH_SQL_SEQUENTIAL (default 1000), BENCH_SQL_CONCURRENT (calls per caller, 40).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';
import { parseCredentialSecret } from '@tollgate/core';
import type { CompileContext, ResourceDescriptor } from '@tollgate/core';
import { postgresConnector } from '@tollgate/connector-postgres';
import type { SqlRequest } from '@tollgate/connector-sql';

import { OPS_PERMISSIONS, seedShopOrders, shopOrdersSpec } from '../fixtures/shop-orders.js';
import { adminUrl } from '../../packages/connectors/postgres/test/support.js';

const SMOKE = process.argv.includes('--smoke') || process.env['BENCH_SMOKE'] === '1';
const SEQUENTIAL = SMOKE ? 20 : Number(process.env['BENCH_SQL_SEQUENTIAL'] ?? 1000);
const PER_CALLER = SMOKE ? 2 : Number(process.env['BENCH_SQL_CONCURRENT'] ?? 40);
const CALLERS = 32;
const ROUNDS = SMOKE ? 1 : 5;
const WARMUP = SMOKE ? 5 : 100;
const TOOLBOX_PORT = Number(process.env['BENCH_TOOLBOX_PORT'] ?? 28500);

interface Stats {
  calls: number;
  p50Ms: number;
  p99Ms: number;
  throughput: number;
}
type Call = () => Promise<unknown>;

const url = new URL(adminUrl());
const login = {
  host: url.hostname,
  port: Number(url.port || 5432),
  database: url.pathname.slice(1),
  user: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
};
process.env['TG_BENCH_PG'] = JSON.stringify({ username: login.user, password: login.password });
const credentials = (ref: string) =>
  Promise.resolve(parseCredentialSecret(process.env[ref.slice(6)] ?? ''));
const spec = shopOrdersSpec({
  host: login.host,
  port: login.port,
  database: login.database,
  credentialRef: 'env://TG_BENCH_PG',
  timeoutMs: 5000,
  maxConnections: CALLERS,
});
const principal = { tenant: 'team-a', agent: 'ops_bot' };
const descriptor: ResourceDescriptor = {
  apiVersion: 'tollgate.dev/v1',
  kind: 'Resource',
  metadata: { name: 'shop_orders', tenant: 'team-a', environment: 'bench' },
  spec: spec as unknown as ResourceDescriptor['spec'],
};
const call: CompileContext = {
  descriptor,
  permissions: OPS_PERMISSIONS,
  principal,
  cursorKey: 'bench',
};
/** The statement the connector compiles for a case (Toolbox and the direct driver run the same). */
const nativeOf = (operation: string, args: unknown): Extract<SqlRequest, { mode: 'read' }> =>
  postgresConnector.compile(operation, args, call).native as Extract<SqlRequest, { mode: 'read' }>;

const cases = {
  lookup: {
    operation: 'get',
    args: { id: '12345' },
    toolbox: 'order_by_id',
    toolboxArgs: { id: 12345, tenant: 'team-a' },
  },
  page: {
    operation: 'search',
    args: {
      filters: [{ field: 'status', op: 'eq', value: 'paid' }],
      sort: [{ field: 'id', order: 'asc' }],
      limit: 20,
    },
    toolbox: 'paid_page',
    toolboxArgs: { status: 'paid', tenant: 'team-a' },
  },
} as const;

async function connectorCall(kind: keyof typeof cases): Promise<unknown> {
  const c = cases[kind];
  const request = postgresConnector.compile(c.operation, c.args, call);
  const upstream = await postgresConnector.execute(request, {
    descriptor,
    credentials,
    deadline: Date.now() + 10_000,
  });
  return postgresConnector.shape(c.operation, upstream, {
    descriptor,
    permissions: call.permissions,
    request,
  });
}

/** MCP Streamable HTTP client for Toolbox: initialize once, then tools/call with keep-alive. */
class ToolboxClient {
  private session: string | undefined;
  private id = 0;
  constructor(private readonly endpoint: string) {}
  async rpc(method: string, params: unknown, notify = false): Promise<unknown> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    };
    if (this.session !== undefined) headers['mcp-session-id'] = this.session;
    const body = notify
      ? { jsonrpc: '2.0', method, params }
      : { jsonrpc: '2.0', id: ++this.id, method, params };
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    this.session ??= response.headers.get('mcp-session-id') ?? undefined;
    const text = await response.text();
    if (notify) return undefined;
    const json = text.startsWith('{')
      ? text
      : (text.split('\n').find((l) => l.startsWith('data:')) ?? '').slice(5);
    const parsed = JSON.parse(json) as {
      result?: { isError?: boolean; content?: unknown };
      error?: unknown;
    };
    if (parsed.error !== undefined || parsed.result?.isError === true)
      throw new Error(`toolbox: ${JSON.stringify(parsed.error ?? parsed.result)}`);
    return parsed.result;
  }
  async init(): Promise<void> {
    await this.rpc('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'tollgate-bench', version: '1' },
    });
    await this.rpc('notifications/initialized', {}, true);
  }
}

async function startToolbox(dir: string): Promise<ChildProcess> {
  const lookup = nativeOf('get', cases.lookup.args);
  const page = nativeOf('search', cases.page.args);
  // The connector binds filters first, then the row filter: $1 is the value, $2 the tenant.
  const yaml = `kind: source
name: shop
type: postgres
host: ${login.host}
port: ${login.port}
database: ${login.database}
user: \${TG_BENCH_PG_USER}
password: \${TG_BENCH_PG_PASSWORD}
---
kind: tool
name: order_by_id
type: postgres-sql
source: shop
description: One order by id, within the caller's tenant.
statement: ${JSON.stringify(lookup.statement.text)}
parameters:
  - { name: id, type: integer, description: Order id }
  - { name: tenant, type: string, description: Tenant }
---
kind: tool
name: paid_page
type: postgres-sql
source: shop
description: A page of orders with a status, within the caller's tenant.
statement: ${JSON.stringify(page.statement.text)}
parameters:
  - { name: status, type: string, description: Order status }
  - { name: tenant, type: string, description: Tenant }
`;
  const config = join(dir, 'tools.yaml');
  await writeFile(config, yaml, { mode: 0o600 });
  const bin = createRequire(import.meta.url).resolve('@toolbox-sdk/server/bin/run.js');
  const child = spawn(
    process.execPath,
    [
      bin,
      '--config',
      config,
      '--port',
      String(TOOLBOX_PORT),
      '--address',
      '127.0.0.1',
      '--disable-version-check',
      '--disable-reload',
      '--log-level',
      'WARN',
    ],
    {
      env: { ...process.env, TG_BENCH_PG_USER: login.user, TG_BENCH_PG_PASSWORD: login.password },
      stdio: ['ignore', 'ignore', 'ignore'],
      detached: true,
    },
  );
  for (let i = 0; i < 100; i += 1) {
    try {
      await fetch(`http://127.0.0.1:${TOOLBOX_PORT}/`);
      return child;
    } catch {
      await sleep(100);
    }
  }
  stopToolbox(child);
  throw new Error('toolbox did not start');
}

/** The launcher execs the platform binary as a child: stop the whole process group. */
function stopToolbox(child: ChildProcess): void {
  if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
}

function stats(samples: number[], wallMs: number): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return {
    calls: samples.length,
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
    throughput: Math.round((samples.length / wallMs) * 1000),
  };
}
const round = (n: number) => Math.round(n * 1000) / 1000;

async function timed(fn: Call, samples: number[]): Promise<void> {
  const started = performance.now();
  await fn();
  samples.push(performance.now() - started);
}

/** Alternating blocks of each way, sequential or concurrent; returns stats per way. */
async function compare(
  ways: Record<string, Call>,
  concurrent: boolean,
): Promise<Record<string, Stats>> {
  const samples: Record<string, number[]> = {};
  const wall: Record<string, number> = {};
  for (const name of Object.keys(ways)) {
    samples[name] = [];
    wall[name] = 0;
    for (let i = 0; i < WARMUP; i += 1) await (ways[name] as Call)();
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, fn] of Object.entries(ways)) {
      const started = performance.now();
      if (concurrent) {
        await Promise.all(
          Array.from({ length: CALLERS }, async () => {
            for (let i = 0; i < Math.ceil(PER_CALLER / ROUNDS); i += 1)
              await timed(fn, samples[name] as number[]);
          }),
        );
      } else {
        for (let i = 0; i < Math.ceil(SEQUENTIAL / ROUNDS); i += 1)
          await timed(fn, samples[name] as number[]);
      }
      wall[name] = (wall[name] as number) + performance.now() - started;
    }
  }
  return Object.fromEntries(
    Object.keys(ways).map((name) => [name, stats(samples[name] as number[], wall[name] as number)]),
  );
}

async function main(): Promise<void> {
  const admin = new pg.Pool({ connectionString: adminUrl(), max: 2 });
  const seeded = performance.now();
  await seedShopOrders(admin);
  const seedMs = Math.round(performance.now() - seeded);
  await admin.end();
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-sql-bench-'));
  const toolbox = await startToolbox(dir);
  const direct = new pg.Pool({ ...login, max: CALLERS });
  const client = new ToolboxClient(`http://127.0.0.1:${TOOLBOX_PORT}/mcp`);
  try {
    await client.init();
    const report: Record<string, unknown> = { rows: 100_000, seedMs, smoke: SMOKE };
    for (const kind of ['lookup', 'page'] as const) {
      const c = cases[kind];
      const compiled = nativeOf(c.operation, c.args);
      const statement = 'statement' in compiled ? compiled.statement : undefined;
      if (statement === undefined) throw new Error('no statement');
      const ways: Record<string, Call> = {
        direct: () => direct.query(statement.text, statement.values),
        connector: () => connectorCall(kind),
        toolbox: () => client.rpc('tools/call', { name: c.toolbox, arguments: c.toolboxArgs }),
      };
      // Same answers from all three before timing anything.
      const rows = (await direct.query(statement.text, statement.values)).rowCount;
      const shaped = (await connectorCall(kind)) as { returned: number };
      report[kind] = {
        statement: statement.text,
        directRows: rows,
        connectorReturned: shaped.returned,
      };
      for (const mode of ['sequential', 'concurrent32'] as const) {
        const result = await compare(ways, mode === 'concurrent32');
        const ratio = (a: Stats, b: Stats) => ({
          p50: round(a.p50Ms / b.p50Ms),
          p99: round(a.p99Ms / b.p99Ms),
        });
        (report[kind] as Record<string, unknown>)[mode] = {
          ...result,
          connectorVsDirect: ratio(result['connector'] as Stats, result['direct'] as Stats),
          toolboxVsDirect: ratio(result['toolbox'] as Stats, result['direct'] as Stats),
          connectorVsToolbox: ratio(result['connector'] as Stats, result['toolbox'] as Stats),
        };
      }
    }
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    stopToolbox(toolbox);
    await direct.end();
    await postgresConnector.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
