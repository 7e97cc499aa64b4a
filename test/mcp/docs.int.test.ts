/**
 * The client configurations the README and docs/mcp.md tell people to paste: every JSON
 * (`mcpServers`, OpenClaw's `mcp.servers`) and TOML (Codex's `[mcp_servers.*]`) server entry
 * is read out of the documents and run as its client would — a launched command over stdio,
 * or a URL with its headers over Streamable HTTP — against a real stack, where it must list
 * the agent's tools and call one. The only substitutions are the ones the documents ask the
 * reader to make: the checkout path, the gateway URL, the token, the agent's name (this
 * stack's agents are `support_bot`/…), and the installed `mcp-remote` for `npx -y mcp-remote`.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoRoot } from '../support/process.js';
import { startMcpStack } from './support/stack.js';
import type { McpStack } from './support/stack.js';

const MCP_REMOTE = join(repoRoot, 'test', 'node_modules', 'mcp-remote', 'dist', 'proxy.js');
const DOCUMENTS = ['README.md', 'docs/mcp.md'];
const PLACEHOLDER_URLS = ['https://tollgate.example.com/mcp', 'http://127.0.0.1:7068/mcp'];

/** One documented server entry. */
interface Entry {
  where: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  bearer_token_env_var?: string;
}

/** Every server entry of the JSON and TOML code blocks of `markdown`. */
function documentedEntries(file: string, markdown: string): Entry[] {
  const entries: Entry[] = [];
  for (const [, lang, body] of markdown.matchAll(/```(json|toml)\n([\s\S]*?)```/g)) {
    if (lang === 'json') {
      const doc = JSON.parse(body!) as {
        mcpServers?: Record<string, Entry>;
        mcp?: { servers?: Record<string, Entry> };
      };
      for (const [name, entry] of Object.entries(doc.mcpServers ?? doc.mcp?.servers ?? {})) {
        entries.push({ ...entry, where: `${file} ${name}` });
      }
    } else {
      let current: Entry | undefined;
      for (const line of body!.split('\n')) {
        const section = /^\[mcp_servers\.(\w+)\]$/.exec(line.trim());
        if (section) entries.push((current = { where: `${file} ${section[1]} (toml)` }));
        const pair = /^(\w+)\s*=\s*(.+)$/.exec(line.trim());
        if (pair && current)
          (current as unknown as Record<string, unknown>)[pair[1]!] = JSON.parse(pair[2]!);
      }
    }
  }
  return entries;
}

let s: McpStack;
let home: string;
let token: string;
let entries: Entry[];
const clients: Client[] = [];

beforeAll(async () => {
  s = await startMcpStack();
  home = await mkdtemp(join(tmpdir(), 'tollgate-mcp-docs-'));
  await mkdir(join(home, 'keys'), { recursive: true });
  await writeFile(join(home, 'keys', 'issuer.json'), JSON.stringify(s.h.keys), { mode: 0o600 });
  token = await s.agentToken('support_bot');
  entries = [];
  for (const file of DOCUMENTS) {
    entries.push(...documentedEntries(file, await readFile(join(repoRoot, file), 'utf8')));
  }
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await s?.stop();
  await rm(home, { recursive: true, force: true });
});

/** What the reader fills in: the checkout, the URL, the agent. */
function filled(text: string): string {
  let out = text.replaceAll('/opt/tollgate', repoRoot).replace(/^support$/, 'support_bot');
  for (const url of PLACEHOLDER_URLS) out = out.replaceAll(url, s.url.href);
  return out;
}

/** A header as the client expands it: `${VAR}` / `${env:VAR}` from its environment. */
function expanded(text: string): string {
  return filled(text).replace(/\$\{(?:env:)?(\w+)\}/g, (_, name: string) =>
    name === 'TOLLGATE_MCP_TOKEN' ? token : `<unset ${name}>`,
  );
}

const SLOW = { timeout: 120_000 };

async function inBatches<T, R>(
  size: number,
  items: T[],
  run: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) {
    out.push(...(await Promise.all(items.slice(i, i + size).map(run))));
  }
  return out;
}

async function connect(entry: Entry): Promise<Client> {
  const client = new Client({ name: 'docs-test', version: '1.0.0' });
  const env = Object.fromEntries(
    Object.entries(entry.env ?? {}).map(([k, v]) => [k, v === '<token>' ? token : v]),
  );
  if (entry.command !== undefined) {
    let command = entry.command;
    // `${VAR}` in arguments stays: mcp-remote expands it from the environment it is given.
    let args = (entry.args ?? []).map(filled);
    if (command === 'npx' && args[0] === '-y' && args[1] === 'mcp-remote') {
      [command, args] = [process.execPath, [MCP_REMOTE, ...args.slice(2)]];
    }
    if (command === 'node') command = process.execPath;
    await client.connect(
      new StdioClientTransport({
        command,
        args,
        env: { PATH: process.env.PATH ?? '', TOLLGATE_HOME: home, ...s.h.nats.env, ...env },
        stderr: 'pipe',
      }),
      SLOW,
    );
  } else {
    const headers = Object.fromEntries(
      Object.entries(entry.headers ?? {}).map(([k, v]) => [k, expanded(v)]),
    );
    if (entry.bearer_token_env_var !== undefined) headers.Authorization = `Bearer ${token}`;
    await client.connect(
      new StreamableHTTPClientTransport(new URL(filled(entry.url!)), {
        requestInit: { headers },
      }),
      SLOW,
    );
  }
  clients.push(client);
  return client;
}

describe('mcp docs - the documented client configurations', () => {
  it('mcp docs - the documents hold stdio and HTTP entries for each client', () => {
    const where = entries.map((e) => e.where).join('\n');
    expect(where).toContain('README.md tollgate (toml)');
    expect(where).toContain('docs/mcp.md tollgate_local');
    expect(entries.filter((e) => e.command !== undefined).length).toBeGreaterThanOrEqual(4);
    expect(entries.filter((e) => e.url !== undefined).length).toBeGreaterThanOrEqual(4);
  });

  // Each entry launches its own processes (the CLI, mcp-remote): three at a time, with room for
  // a loaded machine.
  it('mcp docs - every entry connects, lists the agent its tools and calls one', async () => {
    const failures = await inBatches(3, entries, async (entry) => {
      try {
        const client = await connect(entry);
        const names = (await client.listTools(undefined, SLOW)).tools.map((t) => t.name);
        expect(names, entry.where).toContain('es_orders_get');
        expect(names, entry.where).not.toContain('es_orders_write');
        const got = (await client.callTool(
          { name: 'es_orders_get', arguments: { id: '12345' } },
          undefined,
          SLOW,
        )) as { structuredContent?: { status: string } };
        expect(got.structuredContent?.status, entry.where).toBe('ok');
        await client.close();
        return [];
      } catch (err) {
        return [`${entry.where}: ${err instanceof Error ? err.message : String(err)}`];
      }
    });
    expect(failures.flat()).toEqual([]);
  }, 400_000);
});
