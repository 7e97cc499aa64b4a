/**
 * SQL benchmark: the same primary-key lookup and the same filtered page (status = paid for one
 * tenant, ordered by id, 20 rows) on `shop.orders` (100,000 rows), on PostgreSQL and on
 * MariaDB, in one run:
 * - direct: the statement straight through the driver (`pg`: a parameterized query; `mysql2`:
 *   a prepared statement, as the connector runs it);
 * - connector: Tollgate's postgres or mysql connector in process (compile → execute → shape:
 *   read-only session, row filter, redaction, caps) — the executor and NATS are not in this path;
 * - tollgate: the whole call path — the agent SDK → NATS (a private nats-server) → the executor
 *   as its own process (token, policy decision, validation, the connector, the audit event
 *   stored by JetStream before the answer) → the server;
 * - toolbox: MCP Toolbox for Databases (`@toolbox-sdk/server`, its real binary) serving a
 *   `postgres-sql` / `mysql-sql` tool with the very statement the connector compiled, over MCP HTTP.
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

import mysql from 'mysql2/promise';
import pg from 'pg';
import { Kvm } from '@nats-io/kv';
import {
  descriptorHash,
  generateIssuerKeys,
  issuePrincipalToken,
  parseCredentialSecret,
} from '@tollgate/core';
import type {
  CompileContext,
  Connector,
  JsonObject,
  PublishedResource,
  ResourceDescriptor,
} from '@tollgate/core';
import { operationsOf } from '@tollgate/kinds';
import { buckets, resourceKey, subjects } from '@tollgate/kit';
import { compileBundle } from '@tollgate/policy';
import type { NatsConnection } from '@nats-io/transport-node';
import { TollgateClient } from '@tollgate/sdk';
import { mysqlConnector } from '@tollgate/connector-mysql';
import { postgresConnector } from '@tollgate/connector-postgres';
import type { SqlRequest, SqlResourceSpec } from '@tollgate/connector-sql';

import { OPS_PERMISSIONS, seedShopOrders, shopOrdersSpec } from '../fixtures/shop-orders.js';
import { seedShopOrdersMysql, shopOrdersMysqlSpec } from '../fixtures/shop-orders-mysql.js';
import { adminUrl as pgAdminUrl } from '../../packages/connectors/postgres/test/support.js';
import { adminUrl as mysqlAdminUrl } from '../../packages/connectors/mysql/test/support.js';
import { ordersAgents } from '../fixtures/orders.js';
import { startNatsServer } from '../support/nats-server.js';
import type { NatsServer } from '../support/nats-server.js';
import { startService } from '../support/process.js';
import type { RunningService } from '../support/process.js';

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

interface Login {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
}
const loginOf = (dsn: string, port: number): Login => {
  const url = new URL(dsn);
  return {
    host: url.hostname,
    port: Number(url.port || port),
    database: url.pathname.slice(1),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
};
const credentials = (ref: string) =>
  Promise.resolve(parseCredentialSecret(process.env[ref.slice(6)] ?? ''));
const principal = { tenant: 'team-a', agent: 'ops_bot' };
const ENVIRONMENT = 'bench';
type Statement = { text: string; values: unknown[] };

/** One SQL kind under test: its connector, resource, direct driver and Toolbox source. */
interface Side {
  kind: string;
  login: Login;
  seedMs: number;
  connector: Connector<SqlRequest>;
  call: CompileContext;
  /** The statement straight through the driver. */
  direct(statement: Statement): Promise<unknown>;
  /** Rows the driver returned for a statement. */
  rows(statement: Statement): Promise<number>;
  /** Toolbox's source and tool type for this server. */
  toolbox: { source: string; tool: string };
  close(): Promise<void>;
}

function contextOf(kind: string, spec: SqlResourceSpec): CompileContext {
  const descriptor: ResourceDescriptor = {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name: `shop_orders_${kind}`, tenant: 'team-a', environment: ENVIRONMENT },
    spec: {
      ...spec,
      // Ops's permission set as the policy computes it is OPS_PERMISSIONS: the same statement.
      access: {
        ...spec.access,
        fieldRoles: { customer_email: ['support'], customer_id: ['support'] },
      },
    } as unknown as ResourceDescriptor['spec'],
  };
  return { descriptor, permissions: OPS_PERMISSIONS, principal, cursorKey: 'bench' };
}

async function postgresSide(): Promise<Side> {
  const login = loginOf(pgAdminUrl(), 5432);
  const admin = new pg.Pool({ connectionString: pgAdminUrl(), max: 2 });
  const seeded = performance.now();
  await seedShopOrders(admin);
  const seedMs = Math.round(performance.now() - seeded);
  await admin.end();
  process.env['TG_BENCH_PG'] = JSON.stringify({ username: login.user, password: login.password });
  const spec = shopOrdersSpec({
    host: login.host,
    port: login.port,
    database: login.database,
    credentialRef: 'env://TG_BENCH_PG',
    timeoutMs: 5000,
    maxConnections: CALLERS,
  });
  const direct = new pg.Pool({ ...login, max: CALLERS });
  return {
    kind: 'postgres',
    login,
    seedMs,
    connector: postgresConnector,
    call: contextOf('postgres', spec),
    direct: (statement) => direct.query(statement.text, statement.values),
    rows: async (statement) => (await direct.query(statement.text, statement.values)).rowCount ?? 0,
    toolbox: { source: 'postgres', tool: 'postgres-sql' },
    close: async () => {
      await direct.end();
      await postgresConnector.close();
    },
  };
}

async function mysqlSide(): Promise<Side> {
  const login = loginOf(mysqlAdminUrl(), 3306);
  const admin = mysql.createPool({ uri: mysqlAdminUrl(), connectionLimit: 2 });
  const seeded = performance.now();
  await seedShopOrdersMysql(admin);
  const seedMs = Math.round(performance.now() - seeded);
  await admin.end();
  process.env['TG_BENCH_MYSQL'] = JSON.stringify({
    username: login.user,
    password: login.password,
  });
  const spec = shopOrdersMysqlSpec({
    host: login.host,
    port: login.port,
    database: login.database,
    credentialRef: 'env://TG_BENCH_MYSQL',
    timeoutMs: 5000,
    maxConnections: CALLERS,
  });
  const direct = mysql.createPool({
    ...login,
    connectionLimit: CALLERS,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  const run = (statement: Statement) =>
    direct.execute<mysql.RowDataPacket[]>(statement.text, statement.values as string[]);
  return {
    kind: 'mysql',
    login,
    seedMs,
    connector: mysqlConnector,
    call: contextOf('mysql', spec),
    direct: run,
    rows: async (statement) => (await run(statement))[0].length,
    toolbox: { source: 'mysql', tool: 'mysql-sql' },
    close: async () => {
      await direct.end();
      await mysqlConnector.close();
    },
  };
}

/** The statement the connector compiles for a case (Toolbox and the direct driver run the same). */
const nativeOf = (side: Side, operation: string, args: unknown) =>
  side.connector.compile(operation, args, side.call).native as Extract<
    SqlRequest,
    { mode: 'read' }
  >;

const cases = {
  lookup: {
    operation: 'get',
    args: { id: '12345' },
    toolbox: 'order_by_id',
    toolboxArgs: { tenant: 'team-a', id: 12345 },
  },
  page: {
    operation: 'search',
    args: {
      filters: [{ field: 'status', op: 'eq', value: 'paid' }],
      sort: [{ field: 'id', order: 'asc' }],
      limit: 20,
    },
    toolbox: 'paid_page',
    toolboxArgs: { tenant: 'team-a', status: 'paid' },
  },
} as const;

async function connectorCall(side: Side, kind: keyof typeof cases): Promise<unknown> {
  const c = cases[kind];
  const { connector, call } = side;
  const request = connector.compile(c.operation, c.args, call);
  const upstream = await connector.execute(request, {
    descriptor: call.descriptor,
    credentials,
    deadline: Date.now() + 10_000,
  });
  return connector.shape(c.operation, upstream, {
    descriptor: call.descriptor,
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

/** Toolbox's tools.yaml: one source per server, the two tools on each (`<kind>_<tool>`). */
function toolboxConfig(sides: Side[]): string {
  const docs: string[] = [];
  for (const side of sides) {
    const lookup = nativeOf(side, 'get', cases.lookup.args);
    const page = nativeOf(side, 'search', cases.page.args);
    const variable = `TG_BENCH_${side.kind.toUpperCase()}`;
    docs.push(`kind: source
name: ${side.kind}
type: ${side.toolbox.source}
host: ${side.login.host}
port: ${side.login.port}
database: ${side.login.database}
user: \${${variable}_USER}
password: \${${variable}_PASSWORD}`);
    // Parameters in the order the compiled statement binds them: the row filter's tenant first.
    docs.push(`kind: tool
name: ${side.kind}_order_by_id
type: ${side.toolbox.tool}
source: ${side.kind}
description: One order by id, within the caller's tenant.
statement: ${JSON.stringify(lookup.statement.text)}
parameters:
  - { name: tenant, type: string, description: Tenant }
  - { name: id, type: integer, description: Order id }`);
    docs.push(`kind: tool
name: ${side.kind}_paid_page
type: ${side.toolbox.tool}
source: ${side.kind}
description: A page of orders with a status, within the caller's tenant.
statement: ${JSON.stringify(page.statement.text)}
parameters:
  - { name: tenant, type: string, description: Tenant }
  - { name: status, type: string, description: Order status }`);
  }
  return `${docs.join('\n---\n')}\n`;
}

async function startToolbox(dir: string, sides: Side[]): Promise<ChildProcess> {
  const config = join(dir, 'tools.yaml');
  await writeFile(config, toolboxConfig(sides), { mode: 0o600 });
  const env: Record<string, string> = {};
  for (const side of sides) {
    env[`TG_BENCH_${side.kind.toUpperCase()}_USER`] = side.login.user;
    env[`TG_BENCH_${side.kind.toUpperCase()}_PASSWORD`] = side.login.password;
  }
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
    { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'ignore'], detached: true },
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

/** The executor as its own process on a private NATS, serving both resources; an SDK client. */
interface Governed {
  client: TollgateClient;
  nc: NatsConnection;
  nats: NatsServer;
  executor: RunningService;
}

async function startGoverned(dir: string, sides: Side[]): Promise<Governed> {
  const nats = await startNatsServer();
  const nc = await nats.connect('sql-bench');
  try {
    return await governedOn(dir, sides, nats, nc);
  } catch (err) {
    await nc.close();
    await nats.dispose();
    throw err;
  }
}

async function governedOn(
  dir: string,
  sides: Side[],
  nats: NatsServer,
  nc: NatsConnection,
): Promise<Governed> {
  const keys = await generateIssuerKeys('tollgate-sql-bench');
  await writeFile(join(dir, 'issuer.json'), JSON.stringify(keys), { mode: 0o600 });
  const kvm = new Kvm(nc);
  const resources = await kvm.create(buckets.resources);
  const resourceList = sides.map((side) => ({
    version: 1,
    descriptor: side.call.descriptor,
    operations: operationsOf(side.call.descriptor),
  }));
  for (const { descriptor } of resourceList) {
    const { name } = descriptor.metadata;
    const published: PublishedResource = {
      tenant: 'team-a',
      environment: ENVIRONMENT,
      name,
      version: 1,
      hash: descriptorHash(descriptor),
      descriptor,
      publishedAt: new Date().toISOString(),
    };
    await resources.put(resourceKey('team-a', ENVIRONMENT, name), JSON.stringify(published));
  }
  const bundle = compileBundle({
    tenant: 'team-a',
    version: 1,
    agents: ordersAgents('team-a'),
    policies: [],
    resources: resourceList,
  });
  if (!bundle.ok) throw new Error(`bench bundle: ${JSON.stringify(bundle.problems)}`);
  await (await kvm.create(buckets.policyBundles)).put('team-a', JSON.stringify(bundle.bundle));
  const executor = startService('executor', {
    ...nats.env,
    TOLLGATE_TRUSTED_ISSUERS_FILE: join(dir, 'issuer.json'),
    TOLLGATE_EXECUTOR_GRPC_ADDR: '127.0.0.1:0',
    TOLLGATE_CREDENTIAL_NAMESPACES: 'unrestricted',
    TOLLGATE_CURSOR_KEY: 'bench',
    TOLLGATE_LOG_LEVEL: 'info',
  });
  try {
    await executor.waitForLog((l) => l.msg === 'ready', 60_000);
  } catch (err) {
    executor.child.kill('SIGTERM');
    throw err;
  }
  const token = await issuePrincipalToken(
    keys,
    { ...principal, environment: ENVIRONMENT },
    { ttlSeconds: 3_600 },
  );
  return { client: TollgateClient.over(nc, { token, timeoutMs: 10_000 }), nc, nats, executor };
}

async function stopGoverned(governed: Governed | undefined): Promise<void> {
  if (governed === undefined) return;
  await governed.client.close();
  await governed.nc.close();
  governed.executor.child.kill('SIGTERM');
  await governed.executor.exited;
  await governed.nats.dispose();
}

/** One call through the SDK; throws unless it answered with rows. */
async function governedCall(
  governed: Governed,
  side: Side,
  kind: keyof typeof cases,
): Promise<{ returned: number }> {
  const c = cases[kind];
  const resource = side.call.descriptor.metadata.name;
  const outcome = await governed.client.call(
    {
      name: `${resource}_${c.operation}`,
      description: '',
      version: '',
      resource,
      resourceVersion: 1,
      resourceKind: side.kind,
      operation: c.operation,
      inputSchema: {},
      format: 'json_schema',
      rendering: {},
      callSubject: subjects.call(side.kind, resource),
    },
    c.args as unknown as JsonObject,
  );
  if (outcome.status !== 'ok') throw new Error(`tollgate call: ${JSON.stringify(outcome)}`);
  return { returned: outcome.meta?.returned ?? 0 };
}

/** Ready once a call succeeds (the executor loads resources and bundles first). */
async function untilAnswered(call: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await call();
      return;
    } catch (err) {
      if (attempt > 100) throw err;
      await sleep(200);
    }
  }
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
  const sides = [await postgresSide(), await mysqlSide()];
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-sql-bench-'));
  const toolbox = await startToolbox(dir, sides);
  const client = new ToolboxClient(`http://127.0.0.1:${TOOLBOX_PORT}/mcp`);
  let governed: Governed | undefined;
  try {
    await client.init();
    governed = await startGoverned(dir, sides);
    const through = governed;
    const report: Record<string, unknown> = { rows: 100_000, smoke: SMOKE };
    for (const side of sides) {
      const perKind: Record<string, unknown> = { seedMs: side.seedMs };
      report[side.kind] = perKind;
      for (const kind of ['lookup', 'page'] as const) {
        const c = cases[kind];
        const { statement } = nativeOf(side, c.operation, c.args);
        const tool = `${side.kind}_${c.toolbox}`;
        const ways: Record<string, Call> = {
          direct: () => side.direct(statement),
          connector: () => connectorCall(side, kind),
          tollgate: () => governedCall(through, side, kind),
          toolbox: () => client.rpc('tools/call', { name: tool, arguments: c.toolboxArgs }),
        };
        // Same answers from all three before timing anything.
        const directRows = await side.rows(statement);
        const shaped = (await connectorCall(side, kind)) as { returned: number };
        await untilAnswered(() => governedCall(through, side, kind));
        const governedReturned = (await governedCall(through, side, kind)).returned;
        const answer = JSON.stringify(await ways['toolbox']?.());
        if (
          directRows === 0 ||
          // A page asks for one row more than it returns, to tell whether more follow.
          shaped.returned !== (kind === 'page' ? Math.min(directRows, 20) : directRows) ||
          governedReturned !== shaped.returned ||
          (kind === 'lookup' && !answer.includes('12345'))
        )
          throw new Error(`${side.kind} ${kind}: the four ways disagree`);
        const entry: Record<string, unknown> = {
          statement: statement.text,
          directRows,
          connectorReturned: shaped.returned,
        };
        perKind[kind] = entry;
        for (const mode of ['sequential', 'concurrent32'] as const) {
          const result = await compare(ways, mode === 'concurrent32');
          const ratio = (a: Stats, b: Stats) => ({
            p50: round(a.p50Ms / b.p50Ms),
            p99: round(a.p99Ms / b.p99Ms),
          });
          entry[mode] = {
            ...result,
            connectorVsDirect: ratio(result['connector'] as Stats, result['direct'] as Stats),
            toolboxVsDirect: ratio(result['toolbox'] as Stats, result['direct'] as Stats),
            connectorVsToolbox: ratio(result['connector'] as Stats, result['toolbox'] as Stats),
            tollgateVsDirect: ratio(result['tollgate'] as Stats, result['direct'] as Stats),
            tollgateVsToolbox: ratio(result['tollgate'] as Stats, result['toolbox'] as Stats),
          };
        }
      }
    }
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await stopGoverned(governed);
    stopToolbox(toolbox);
    for (const side of sides) await side.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
