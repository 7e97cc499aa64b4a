/**
 * The cost of governing an upstream MCP tool: the same `echo` of server-everything called
 * (a) with the SDK client straight over stdio, unsandboxed, and (b) through the mcp connector
 * (compile with the narrowed schema → pooled sandboxed session with its pin check → shape with
 * the screen), p50/p99 side by side in one run; and the start time of a server directly vs in
 * the sandbox (spawn + initialize). `--smoke` (CI): a few rounds, to show it runs.
 *
 *   npx tsx packages/connectors/mcp/bench/calls.bench.ts [--smoke]
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { mcpSessions, UpstreamSession } from '../src/index.js';
import type { McpSpec } from '../src/index.js';
import {
  call,
  confirmed,
  mcpResource,
  noCredentials,
  npmServer,
  permissionsOf,
} from '../test/support.js';

const smoke = process.argv.includes('--smoke');
const CALLS = smoke ? 20 : 1000;
const STARTS = smoke ? 1 : 5;
const command = npmServer('server-everything', ['stdio']);

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
function report(label: string, samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const p50 = quantile(sorted, 0.5);
  const p99 = quantile(sorted, 0.99);
  process.stdout.write(
    `${label.padEnd(44)} p50 ${p50.toFixed(3)} ms   p99 ${p99.toFixed(3)} ms   (n=${samples.length})\n`,
  );
  return { p50, p99 };
}

async function directClient(): Promise<{ client: Client; startMs: number }> {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1.0.0' }, { capabilities: {} });
  await client.connect(
    new StdioClientTransport({
      command: command.executable,
      args: command.args ?? [],
      stderr: 'ignore',
    }),
  );
  return { client, startMs: performance.now() - started };
}

const draft = mcpResource('everything', command, { echo: { class: 'read' } });
const pinned = await confirmed(draft);
const resource = await confirmed({
  ...draft,
  spec: {
    ...(pinned.spec as unknown as McpSpec),
    schema: { fields: { 'echo.message': { type: 'argument', filterable: true } } },
  },
});
const permissions = permissionsOf(resource);

// Start times.
const direct: number[] = [];
const boxed: number[] = [];
for (let i = 0; i < STARTS; i++) {
  const { client, startMs } = await directClient();
  direct.push(startMs);
  await client.close();
  const session = await UpstreamSession.open(
    resource.spec as unknown as McpSpec,
    'everything',
    noCredentials,
  );
  boxed.push(session.startedMs);
  await session.close();
}

// Calls, interleaved in rounds so drift on a shared machine hits both alike.
const { client } = await directClient();
await call(resource, 'echo', { message: 'warm' }, permissions);
const viaSdk: number[] = [];
const viaTollgate: number[] = [];
for (let i = 0; i < CALLS; i++) {
  let t = performance.now();
  await client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
  viaSdk.push(performance.now() - t);
  t = performance.now();
  await call(resource, 'echo', { message: `m${i}` }, permissions);
  viaTollgate.push(performance.now() - t);
}
await client.close();
await mcpSessions.close();

process.stdout.write(`\nserver-everything echo, ${CALLS} calls each${smoke ? ' (smoke)' : ''}\n`);
const a = report('SDK client, direct stdio (no sandbox)', viaSdk);
const b = report('mcp connector (sandboxed, pinned, screened)', viaTollgate);
process.stdout.write(
  `overhead p50 +${(b.p50 - a.p50).toFixed(3)} ms (×${(b.p50 / a.p50).toFixed(2)}), p99 +${(b.p99 - a.p99).toFixed(3)} ms (×${(b.p99 / a.p99).toFixed(2)})\n`,
);
const s1 = report('start: spawn + initialize, direct', direct);
const s2 = report('start: the same under bubblewrap + prlimit', boxed);
process.stdout.write(`sandbox start ×${(s2.p50 / s1.p50).toFixed(2)}\n`);
