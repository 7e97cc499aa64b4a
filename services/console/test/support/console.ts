/**
 * The console as people run it — its built server (dist/main.js) as a child process against
 * the real stack — and a browser: Debian's chromium driven by playwright-core.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const consoleRoot = fileURLToPath(new URL('../..', import.meta.url));
export const repoRoot = join(consoleRoot, '..', '..');

/** Where Debian puts chromium (`apt-get install chromium`); Playwright's own download cannot work here. */
export const CHROMIUM = process.env.TOLLGATE_CHROMIUM ?? '/usr/bin/chromium';

/** Flags for a headless chromium on a machine without a network beyond loopback. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no chromium at ${CHROMIUM}: apt-get install -y chromium (or set TOLLGATE_CHROMIUM)`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export interface RunningConsole {
  url: string;
  logs(): string;
  stop(): Promise<void>;
}

/** Starts the console with `env` and waits until it answers /api/session. */
export async function startConsole(env: NodeJS.ProcessEnv, url: string): Promise<RunningConsole> {
  const entry = join(consoleRoot, 'dist', 'main.js');
  if (!existsSync(join(consoleRoot, 'dist', 'web', 'index.html'))) {
    throw new Error('the console app is not built: run pnpm build');
  }
  const child: ChildProcess = spawn(process.execPath, [entry], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`the console exited during start:\n${output.slice(-3000)}`);
    try {
      const res = await fetch(`${url}/api/session`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`the console did not answer within 60 s:\n${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    logs: () => output,
    async stop() {
      if (exited) return;
      const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([done, new Promise((r) => setTimeout(r, 10_000))]);
      if (!exited) child.kill('SIGKILL');
    },
  };
}

/** Signs `login` in through the identity provider's login and consent pages. */
export async function signIn(page: Page, consoleUrl: string, login: string): Promise<void> {
  await page.goto(`${consoleUrl}/`);
  await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

/** Serious and critical accessibility violations axe finds on the page (expected: none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id}: ${v.help} (${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')})`,
    );
}

/** Where screenshots go: TOLLGATE_CONSOLE_SCREENSHOTS (docs/console for the README), else .tollgate. */
const SHOTS = process.env.TOLLGATE_CONSOLE_SCREENSHOTS
  ? join(repoRoot, process.env.TOLLGATE_CONSOLE_SCREENSHOTS)
  : join(repoRoot, '.tollgate', 'console-screenshots');

/** Saves a screenshot of the page's viewport as `<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}
