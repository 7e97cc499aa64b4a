/**
 * The console's page budget, measured in one run: how much compressed JavaScript the first
 * page ships (budget 300 KB) and how long until it is interactive on localhost (budget 1 s),
 * cold (empty cache) and warm, for the sign-in page and the overview after signing in.
 * A static one-button page measured the same way gives the machine's floor, so the numbers of
 * a loaded machine read as ratios. Reports; asserts nothing about time. `--smoke` (CI) or BENCH_SMOKE=1
 * takes 3 loads each instead of 15.
 *
 * Needs NATS (deploy/local) and chromium; starts its own console with the dev sign-in.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, repoRoot, startConsole } from '../test/support/console.js';

const RUNS =
  process.env.BENCH_SMOKE || process.argv.includes('--smoke')
    ? 3
    : Number(process.env.BENCH_CONSOLE_RUNS ?? 15);
const PORT = Number(process.env.BENCH_CONSOLE_PORT ?? 22190);
const URL = `http://localhost:${PORT}`;
const STACK_ISSUER = join(repoRoot, '.tollgate', 'keys', 'issuer.json');
const JS_BUDGET = 300 * 1024;
const INTERACTIVE_BUDGET_MS = 1000;

interface Load {
  ms: number;
  jsBytes: number;
  jsFiles: number;
}

/**
 * Waits, checking on every animation frame, until the page shows a `tag` element whose text
 * starts with `text` (a label counts once its control is in it). Playwright's own `waitFor`
 * re-checks at growing intervals (up to 500 ms), which measured its polling instead of the page.
 */
function shown(tag: 'button' | 'label', text: string): (p: Page) => Promise<void> {
  return async (p) => {
    await p.waitForFunction(
      ({ tag, text }) =>
        Array.from(document.querySelectorAll<HTMLElement>(tag)).some(
          (el) =>
            el.offsetParent !== null &&
            (el.textContent ?? '').trim().startsWith(text) &&
            (tag !== 'label' || el.querySelector('select, input') !== null),
        ),
      { tag, text },
      { polling: 'raf' },
    );
  };
}

/** Loads `path` and waits until `ready` is visible and the main thread is idle. */
async function load(page: Page, path: string, ready: (p: Page) => Promise<void>): Promise<Load> {
  const scripts: Array<Promise<number>> = [];
  page.on('response', (res) => {
    if (res.request().resourceType() === 'script') {
      scripts.push(
        res
          .request()
          .sizes()
          .then((s) => s.responseBodySize),
      );
    }
  });
  const start = Date.now();
  await page.goto(path.startsWith('data:') ? path : `${URL}${path}`, { waitUntil: 'commit' });
  await ready(page);
  await page.evaluate(
    () => new Promise((r) => requestIdleCallback(() => r(null), { timeout: 2000 })),
  );
  const ms = Date.now() - start;
  const sizes = await Promise.all(scripts);
  return { ms, jsBytes: sizes.reduce((a, b) => a + b, 0), jsFiles: sizes.length };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function measure(
  browser: Browser,
  name: string,
  path: string,
  ready: (p: Page) => Promise<void>,
  storageState: Awaited<ReturnType<BrowserContext['storageState']>> | undefined,
): Promise<void> {
  const options = storageState ? { storageState } : {};
  const cold: Load[] = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext(options);
    cold.push(await load(await context.newPage(), path, ready));
    await context.close();
  }
  const context = await browser.newContext(options);
  await load(await context.newPage(), path, ready);
  const warm: Load[] = [];
  for (let i = 0; i < RUNS; i++) {
    const page = await context.newPage();
    warm.push(await load(page, path, ready));
    await page.close();
  }
  await context.close();
  const js = cold[0]?.jsBytes ?? 0;
  const row = (label: string, loads: Load[]) => {
    const p50 = percentile(
      loads.map((l) => l.ms),
      50,
    );
    const p95 = percentile(
      loads.map((l) => l.ms),
      95,
    );
    return `  ${label.padEnd(5)} interactive p50 ${String(p50).padStart(5)} ms  p95 ${String(p95).padStart(5)} ms  = ${(p50 / INTERACTIVE_BUDGET_MS).toFixed(2)} × budget (${INTERACTIVE_BUDGET_MS} ms)`;
  };
  process.stdout.write(
    `${name} (${path}), ${RUNS} loads each\n` +
      `  JS shipped compressed: ${(js / 1024).toFixed(1)} KB in ${cold[0]?.jsFiles ?? 0} files = ${(js / JS_BUDGET).toFixed(2)} × budget (300 KB)\n` +
      `${row('cold', cold)}\n${row('warm', warm)}\n`,
  );
}

const home = await mkdtemp(join(tmpdir(), 'tollgate-console-bench-'));
const running = await startConsole(
  {
    ...process.env,
    TOLLGATE_CONSOLE_ADDR: `127.0.0.1:${PORT}`,
    TOLLGATE_CONSOLE_GRPC_ADDR: `127.0.0.1:${PORT + 1}`,
    TOLLGATE_CONSOLE_PUBLIC_URL: URL,
    TOLLGATE_CONSOLE_OIDC_ISSUER: '',
    // The stack's dev issuer (`tollgate up`), which the services trust; else a throwaway one
    // (the page still loads; its data calls are refused).
    TOLLGATE_CONSOLE_ISSUER_KEY_FILE: existsSync(STACK_ISSUER)
      ? STACK_ISSUER
      : join(home, 'issuer.json'),
    TOLLGATE_LOG_LEVEL: 'warn',
  },
  URL,
);
let browser: Browser | undefined;
try {
  browser = await launchBrowser();
  // Signed in through the page, the way a person's browser gets the cookie; each measured load
  // then starts from a fresh context (empty cache) holding only that cookie.
  const signing = await browser.newContext();
  const page = await signing.newPage();
  await page.goto(`${URL}/signin`);
  await page.getByLabel('Your name').fill('bench');
  await page.getByLabel('viewer').check();
  await page.getByLabel('admin').uncheck();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  const signedIn = await signing.storageState();
  await signing.close();
  // The floor on this machine now: a one-button page, no script, measured the same way.
  await measure(
    browser,
    'baseline: a static one-button page',
    'data:text/html,<!doctype html><title>b</title><button>Sign in</button>',
    shown('button', 'Sign in'),
    undefined,
  );
  await measure(browser, 'sign-in page', '/signin', shown('button', 'Sign in'), undefined);
  await measure(browser, 'overview, signed in', '/', shown('label', 'Window'), signedIn);
} finally {
  await browser?.close();
  await running.stop();
  await rm(home, { recursive: true, force: true });
}
