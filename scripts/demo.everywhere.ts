/**
 * The demo's last step: the same governed tools over MCP (a summary of what an MCP client is
 * offered, one definition in full) and in the web console (its URL, and a screenshot of its
 * overview page taken with Debian's chromium through playwright when `tollgate up` started it).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { DemoError } from './demo.narrator.js';
import type { Narrator } from './demo.narrator.js';

/** Where Debian puts chromium (`apt-get install chromium`), as the console's browser tests use it. */
const CHROMIUM = process.env.TOLLGATE_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOT = fileURLToPath(new URL('../.tollgate/demo/console.png', import.meta.url));

const requireFromConsole = createRequire(
  new URL('../services/console/package.json', import.meta.url),
);

interface StatusDoc {
  console: string;
  mcp: string;
  services: Array<{ name: string; state: string }>;
}

export async function everywhere(n: Narrator): Promise<void> {
  // `status` exits 1 when a server is down (one a skipped step needed); its document still holds.
  const { doc: where } = await n.run<StatusDoc>(['status']);
  if (where === null) throw new DemoError('`tollgate status` gave no document');
  n.say(
    'Notice: MCP clients and the console get exactly these tools, through the same policy, executor and audit.',
  );
  n.ok(
    `MCP clients (Claude Desktop, Cursor, Codex…) connect to ${where.mcp}, or launch \`tollgate mcp --as support\``,
  );
  await mcpSummary(n);
  n.ok(`operators open the console at ${where.console}`);
  const console = where.services.find((s) => s.name === 'console');
  if (console?.state !== 'running') {
    n.skip(
      'the console screenshot',
      `the console was not started by \`tollgate up\` (${console?.state ?? 'not listed'})`,
    );
    return;
  }
  // The console acts through an Agent per operator role (examples/console), declared once.
  const declared = await n.json<{ applied: Array<{ outcome: string }> }>([
    'apply',
    '-f',
    'examples/console',
  ]);
  n.ok(
    `the console's agents (examples/console): ${declared.applied.map((a) => a.outcome).join(', ')}`,
  );
  if (!existsSync(CHROMIUM)) {
    n.skip(
      'the console screenshot',
      `no chromium at ${CHROMIUM} (apt-get install -y chromium, or set TOLLGATE_CHROMIUM)`,
    );
    return;
  }
  const charted = await screenshot(where.console);
  n.ok(
    `the overview page, signed in as a local operator${charted ? ', with the calls of this demo charted' : ' (its statistics had not arrived within 30 s)'}: ${relative(process.cwd(), SCREENSHOT)}`,
  );
}

interface McpToolDoc {
  name: string;
  rendering: Record<string, unknown>;
}

/** `tools ls --format mcp` in short: how many, their names, and one definition in full. */
async function mcpSummary(n: Narrator): Promise<void> {
  const args = ['tools', 'ls', '--as', 'support', '--format', 'mcp'];
  n.command(args);
  const { tools } = await n.json<{ tools: McpToolDoc[] }>(args);
  if (tools.length === 0) throw new DemoError('support is offered no tools over MCP');
  n.line(`${tools.length} tools for support: ${tools.map((t) => t.name).join(', ')}`);
  const shortest = [...tools].sort(
    (a, b) => JSON.stringify(a.rendering).length - JSON.stringify(b.rendering).length,
  )[0]!;
  n.say(`One of them as an MCP client receives it (tools/list), ${shortest.name}:`);
  n.line(compactJson(shortest.rendering));
}

/** Indented JSON with lists of plain values kept on one line. */
function compactJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /\[\s+((?:"[^"]*"|[\w.-]+)(?:,\s+(?:"[^"]*"|[\w.-]+))*)\s+\]/g,
    (_, items: string) => `[${items.replace(/,\s+/g, ', ')}]`,
  );
}

/**
 * Signs in with the console's local dev sign-in and saves the overview page once audit's
 * statistics have filled it in; resolves whether they did.
 */
async function screenshot(url: string): Promise<boolean> {
  const { chromium } = requireFromConsole('playwright-core') as {
    chromium: { launch(options: { executablePath: string; args: string[] }): Promise<Browser> };
  };
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${url}/`);
    await page.getByLabel('Your name').fill('demo-operator');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor({ timeout: 20_000 });
    // The totals and charts fill in from audit's statistics after the page appears.
    const charted = await page
      .getByTestId('total-calls')
      .waitFor({ timeout: 30_000 })
      .then(
        () => true,
        () => false,
      );
    if (charted) await page.waitForTimeout(500);
    await mkdir(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    return charted;
  } finally {
    await browser.close();
  }
}
