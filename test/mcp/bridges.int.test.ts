/**
 * The other ways real clients reach Tollgate over MCP: `tollgate mcp --as AGENT` on stdio (what
 * Claude Desktop, Cursor or Codex launch), `mcp-remote` bridging a stdio client to the HTTP
 * endpoint, and the MCP Inspector's CLI — each listing and calling as two agents that see
 * different fields.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { EventTypes, subjects } from '@tollgate/kit';
import { repoRoot } from '../support/process.js';
import { CLI } from '../e2e/support/cli.js';
import { eventually } from '../support/infra.js';
import { CLIENTS } from './support/oidc.js';
import { startMcpStack } from './support/stack.js';
import type { McpStack } from './support/stack.js';

const run = promisify(execFile);
const TEST_BIN = join(repoRoot, 'test', 'node_modules');
const MCP_REMOTE = join(TEST_BIN, 'mcp-remote', 'dist', 'proxy.js');
const INSPECTOR = join(TEST_BIN, '@modelcontextprotocol', 'inspector-cli', 'build', 'index.js');

let s: McpStack;
let home: string;
const clients: Client[] = [];

beforeAll(async () => {
  s = await startMcpStack();
  // The CLI mints the agent's tokens from its home's dev issuer: the key the stack trusts.
  home = await mkdtemp(join(tmpdir(), 'tollgate-mcp-home-'));
  await mkdir(join(home, 'keys'), { recursive: true });
  await writeFile(join(home, 'keys', 'issuer.json'), JSON.stringify(s.h.keys), { mode: 0o600 });
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await s?.stop();
  await rm(home, { recursive: true, force: true });
});

async function stdioClient(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'bridge-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command,
      args,
      env: {
        PATH: process.env.PATH ?? '',
        TOLLGATE_HOME: home,
        ...s.h.nats.env,
        TOLLGATE_TENANT: 'team-a',
        TOLLGATE_ENV: 'prod',
      },
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  return client;
}

function visibleFields(tools: Array<{ name: string; inputSchema: unknown }>): string[] {
  const search = tools.find((t) => t.name === 'es_orders_search')!;
  type Items = { items?: { enum: string[] } };
  const fields = (search.inputSchema as { properties: { fields: Items & { anyOf?: Items[] } } })
    .properties.fields;
  return (fields.anyOf?.find((b) => b.items) ?? fields).items?.enum ?? [];
}

const FIND_12345 = { filters: [{ field: 'id', op: 'eq', value: '12345' }] };

describe('mcp bridges - tollgate mcp on stdio', () => {
  it('mcp bridges - two agents launched by the CLI list their own tools and call them', async () => {
    const support = await stdioClient(process.execPath, [CLI, 'mcp', '--as', 'support_bot']);
    const ops = await stdioClient(process.execPath, [CLI, 'mcp', '--as', 'ops_bot']);
    const supportTools = (await support.listTools()).tools;
    const opsTools = (await ops.listTools()).tools;
    expect(supportTools.map((t) => t.name)).not.toContain('es_orders_write');
    expect(opsTools.map((t) => t.name)).toContain('es_orders_write');
    expect(visibleFields(supportTools)).not.toContain('customer.email');
    expect(visibleFields(opsTools)).toContain('customer.email');
    const found = (await support.callTool({ name: 'es_orders_search', arguments: FIND_12345 })) as {
      structuredContent?: { status: string; data: Array<{ id: string }> };
    };
    expect(found.structuredContent?.status).toBe('ok');
    expect(found.structuredContent?.data.map((d) => d.id)).toEqual(['12345']);
  });

  it('mcp bridges - a resource change is announced as tools/list_changed', async () => {
    const client = await stdioClient(process.execPath, [CLI, 'mcp', '--as', 'support_bot']);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    await client.listTools();
    s.h.nc.publish(subjects.event(EventTypes.resourceChanged, 'team-a'), new Uint8Array());
    await eventually(() => (changed > 0 ? true : undefined), 10_000);
    expect(changed).toBeGreaterThan(0);
  });

  it('mcp bridges - an unknown agent name is refused before anything starts', async () => {
    const failed = await run(process.execPath, [CLI, 'mcp', '--as', 'Not An Agent'], {
      env: { ...process.env, TOLLGATE_HOME: home },
    }).catch((err: { code: number; stderr: string }) => err);
    expect((failed as { code: number }).code).toBe(2);
    expect((failed as { stderr: string }).stderr).toContain('agent: expected lowercase letters');
  });
});

describe('mcp bridges - mcp-remote from stdio to the HTTP endpoint', () => {
  it('mcp bridges - two agents through mcp-remote see different fields and call', async () => {
    const [supportToken, clerkToken] = await Promise.all([
      s.as.clientToken(CLIENTS.support, s.url.href),
      s.as.clientToken(CLIENTS.clerk, s.url.href),
    ]);
    const viaRemote = (token: string) =>
      stdioClient(process.execPath, [
        MCP_REMOTE,
        s.url.href,
        '--header',
        `Authorization:Bearer ${token}`,
        '--transport',
        'http-only',
      ]);
    const support = await viaRemote(supportToken);
    const clerk = await viaRemote(clerkToken);
    const supportTools = (await support.listTools()).tools;
    const clerkTools = (await clerk.listTools()).tools;
    expect(supportTools.map((t) => t.name)).not.toContain('es_orders_write');
    expect(clerkTools.map((t) => t.name)).toContain('es_orders_write');
    const found = (await support.callTool({
      name: 'es_orders_get',
      arguments: { id: '12345' },
    })) as {
      structuredContent?: { status: string };
    };
    expect(found.structuredContent?.status).toBe('ok');
  });
});

describe('mcp bridges - the MCP Inspector CLI', () => {
  const inspector = async (token: string, ...args: string[]) => {
    const { stdout } = await run(
      process.execPath,
      [
        INSPECTOR,
        s.url.href,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${token}`,
        ...args,
        // It finds its own package.json relative to the working directory.
      ],
      { cwd: dirname(INSPECTOR) },
    ).catch((err: { stdout: string; stderr: string }) => {
      throw new Error(`inspector failed: ${err.stderr}${err.stdout}`);
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  };

  it('mcp bridges - the inspector lists each agent its own tools and calls one', async () => {
    const supportToken = await s.as.clientToken(CLIENTS.support, s.url.href);
    const opsToken = await s.agentToken('ops_bot');
    const supportList = (await inspector(supportToken, '--method', 'tools/list')) as {
      tools: Array<{ name: string; inputSchema: unknown }>;
    };
    const opsList = (await inspector(opsToken, '--method', 'tools/list')) as {
      tools: Array<{ name: string; inputSchema: unknown }>;
    };
    expect(visibleFields(supportList.tools)).not.toContain('customer.email');
    expect(visibleFields(opsList.tools)).toContain('customer.email');
    const called = (await inspector(
      supportToken,
      '--method',
      'tools/call',
      '--tool-name',
      'es_orders_get',
      '--tool-arg',
      'id="12345"',
    )) as { structuredContent?: { status: string; data?: unknown } };
    expect(called.structuredContent?.status).toBe('ok');
  });
});
