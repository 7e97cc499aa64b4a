/**
 * The console in a real browser (Debian's chromium through playwright-core) against the real
 * stack (`tollgate up`) and a real OpenID Connect provider: people sign in, register the orders
 * resource, shape policy, run calls, approve a parked write from a second browser, and a viewer
 * can neither see nor forge a change. Every page is checked with axe and photographed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stackEnv, tollgateJson } from '../../../test/e2e/support/cli.js';
import { ordersScenario } from '../../../test/e2e/support/scenario.js';
import type { OrdersScenario } from '../../../test/e2e/support/scenario.js';
import { bringDown, bringUp } from '../../../test/e2e/support/stack.js';
import {
  launchBrowser,
  repoRoot,
  screenshot,
  seriousViolations,
  signIn,
  startConsole,
} from './support/console.js';
import type { RunningConsole } from './support/console.js';
import { startIdentityProvider } from './support/identity-provider.js';
import type { IdentityProvider } from './support/identity-provider.js';

const BASE_PORT = Number(process.env.TOLLGATE_CONSOLE_TEST_PORT ?? 22180);
const CONSOLE_URL = `http://localhost:${BASE_PORT}`;

let stack: { startedHere: boolean } | undefined;
let scenario: OrdersScenario;
let idp: IdentityProvider;
let consoleApp: RunningConsole;
let browser: Browser;
let admin: BrowserContext;
let adminPage: Page;

/** Waits until the locator's text matches (the page updates live). */
async function waitText(locator: Locator, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    last = ((await locator.count()) > 0 ? await locator.first().textContent() : '') ?? '';
    if (pattern.test(last)) return last;
    if (Date.now() > deadline) throw new Error(`expected ${pattern}, the page shows "${last}"`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function newSignedIn(login: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signIn(page, CONSOLE_URL, login);
  return { context, page };
}

async function resourceVersion(): Promise<number> {
  const doc = await tollgateJson<{ version: number }>([
    '--tenant',
    scenario.tenant,
    'resources',
    'get',
    'es_orders',
  ]);
  return doc.version;
}

/** The console's own API called from inside the page (same origin, the session's cookie). */
function pageFetch(
  page: Page,
  path: string,
  init: { method?: string; body?: unknown; csrf?: string | 'session' },
) {
  return page.evaluate(
    async ({ path, init }) => {
      let csrf = init.csrf;
      if (csrf === 'session')
        csrf = ((await (await fetch('/api/session')).json()) as { csrf: string }).csrf;
      const res = await fetch(path, {
        method: init.method ?? 'POST',
        headers: {
          'content-type': 'application/json',
          ...(csrf !== undefined ? { 'x-tollgate-csrf': csrf } : {}),
        },
        body: JSON.stringify(init.body ?? {}),
      });
      return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
    },
    { path, init },
  );
}

beforeAll(async () => {
  stack = await bringUp();
  scenario = await ordersScenario({ seed: false });
  await scenario.es.index({
    index: scenario.index,
    id: '12346',
    document: {
      id: '12346',
      status: 'paid',
      amount: 42.5,
      currency: 'EUR',
      created_at: '2026-11-30T10:00:00Z',
    },
    refresh: true,
  });
  const agents = await readFile(join(repoRoot, 'examples', 'console', 'agents.yaml'), 'utf8');
  await writeFile(
    join(scenario.dir, '15-console.yaml'),
    agents.replaceAll('tenant: team-a', `tenant: ${scenario.tenant}`),
  );
  for (const file of ['10-agents.yaml', '15-console.yaml', '30-policies.yaml']) {
    await tollgateJson(['--tenant', scenario.tenant, 'apply', '-f', join(scenario.dir, file)]);
  }
  const tenants = [scenario.tenant];
  idp = await startIdentityProvider({
    port: BASE_PORT + 2,
    redirectUri: `${CONSOLE_URL}/auth/callback`,
    postLogoutRedirectUri: `${CONSOLE_URL}/signin`,
    accounts: [
      {
        login: 'alice',
        email: 'alice@example.com',
        name: 'Alice Admin',
        roles: ['admin'],
        tenants,
      },
      {
        login: 'bob',
        email: 'bob@example.com',
        name: 'Bob Approver',
        roles: ['approver'],
        tenants,
      },
      { login: 'vic', email: 'vic@example.com', name: 'Vic Viewer', roles: ['viewer'], tenants },
    ],
  });
  consoleApp = await startConsole(
    {
      ...stackEnv,
      TOLLGATE_CONSOLE_ADDR: `127.0.0.1:${BASE_PORT}`,
      TOLLGATE_CONSOLE_GRPC_ADDR: `127.0.0.1:${BASE_PORT + 1}`,
      TOLLGATE_CONSOLE_PUBLIC_URL: CONSOLE_URL,
      TOLLGATE_CONSOLE_OIDC_ISSUER: idp.issuer,
      TOLLGATE_CONSOLE_OIDC_CLIENT_ID: idp.clientId,
      TOLLGATE_CONSOLE_OIDC_CLIENT_SECRET: idp.clientSecret,
      TOLLGATE_CONSOLE_OIDC_SCOPES: 'openid profile email tollgate',
      TOLLGATE_CONSOLE_ISSUER_KEY_FILE: join(repoRoot, '.tollgate', 'keys', 'issuer.json'),
      TOLLGATE_LOG_LEVEL: 'warn',
    },
    CONSOLE_URL,
  );
  browser = await launchBrowser();
  ({ context: admin, page: adminPage } = await newSignedIn('alice'));
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await consoleApp?.stop();
  await idp?.close();
  await scenario?.cleanup();
  await bringDown(stack);
}, 180_000);

describe('console - in a browser against the real stack', () => {
  it('console - an admin registers the orders resource from YAML through discovery and a reviewed diff', async () => {
    const page = adminPage;
    const yaml = await readFile(join(scenario.dir, '20-orders.yaml'), 'utf8');
    await page.goto(`${CONSOLE_URL}/resources/new`);
    const editor = page.getByLabel('Resource descriptor (YAML)');
    // A wrong value is pointed at: its line and the field's path.
    const broken = yaml.replace('maxLimit: 100', 'maxLimit: ten');
    const line = broken.split('\n').findIndex((l) => l.includes('maxLimit: ten')) + 1;
    await editor.fill(broken);
    const problem = await waitText(page.getByRole('list', { name: 'Problems' }), /maxLimit/);
    expect(problem).toContain(`line ${line}`);
    expect(problem).toContain('spec.access.maxLimit');

    await editor.fill(yaml);
    await page.getByRole('button', { name: '1. Discover' }).click();
    await page.getByRole('heading', { name: 'Discovery preview' }).waitFor();
    const email = page.getByRole('row').filter({ hasText: 'customer.email' }).first();
    expect(await email.textContent()).toContain('keyword');
    await page.getByRole('button', { name: '1. Discover' }).scrollIntoViewIfNeeded();
    await page.mouse.wheel(0, 300);
    await screenshot(page, 'register-discovery');

    await page.getByRole('button', { name: '2. Review changes' }).click();
    await page.getByRole('heading', { name: 'Changes to apply' }).waitFor();
    expect(await page.getByText('A new resource').count()).toBe(1);
    expect(await page.getByRole('row').filter({ hasText: 'spec.access.maxLimit' }).count()).toBe(1);

    await page.getByRole('button', { name: '3. Apply' }).click();
    await waitText(page.getByRole('status'), /es_orders is now version 1/);
    expect(await resourceVersion()).toBe(1);

    await page.goto(`${CONSOLE_URL}/resources`);
    await page.getByRole('link', { name: 'es_orders' }).click();
    await page.getByRole('heading', { name: /es_orders/ }).waitFor();
    await waitText(page.getByRole('row').filter({ hasText: 'v1' }), /v1/);
  }, 180_000);

  it('console - a call run in the playground shows its envelope, trace id and audit record', async () => {
    const page = adminPage;
    await page.goto(`${CONSOLE_URL}/playground`);
    await page.getByLabel('Agent').selectOption('support');
    await page.getByRole('button', { name: 'es_orders_search', exact: true }).click();
    // Readable schema, raw JSON one click away, and a generated form.
    expect(await page.getByRole('row').filter({ hasText: 'filters' }).count()).toBeGreaterThan(0);
    await page.getByText('Raw JSON schema').click();
    expect(await page.getByLabel('Raw JSON schema').textContent()).toContain(
      '"additionalProperties": false',
    );
    await page.getByRole('spinbutton', { name: 'limit' }).fill('5');
    await page.getByRole('button', { name: 'Run es_orders_search' }).click();
    await waitText(page.getByTestId('call-status'), /^ok$/);
    const traceId = (await page.getByTestId('trace-id').textContent()) ?? '';
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    await page.getByRole('button', { name: 'Show its audit record' }).click();
    const record = page.getByTestId('audit-record').filter({ hasText: 'call.completed' });
    await waitText(record, /es_orders_search/, 30_000);
    expect(await record.first().textContent()).toContain(traceId);
    await screenshot(page, 'playground');

    await page.getByRole('link', { name: 'Open in the audit trail' }).click();
    await waitText(page.getByTestId('audit-record'), /es_orders_search/);
    await page.getByRole('link', { name: 'Replay session' }).first().click();
    await waitText(page.getByRole('list', { name: 'Session timeline' }), /es_orders_search/);
  }, 120_000);

  it('console - a policy edited in the browser (Cedar checked inline) takes a tool away from the agent', async () => {
    const page = adminPage;
    await page.goto(`${CONSOLE_URL}/playground`);
    await page.getByLabel('Agent').selectOption('support');
    await page.getByRole('button', { name: 'es_orders_count', exact: true }).waitFor();

    await page.goto(`${CONSOLE_URL}/policies/support-orders`);
    const editor = page.getByLabel('Policy descriptor (YAML)');
    await waitText(editor, /support-orders/).catch(async () =>
      waitText(page.locator('textarea'), /./),
    );
    const current = await editor.inputValue();
    const brokenLine = current.split('\n').findIndex((l) => l.includes('context.limit > 20')) + 1;
    await editor.fill(current.replace('context.limit > 20', 'context.limit >> 20'));
    const cedar = await waitText(page.getByRole('list', { name: 'Problems' }), /spec\.cedar/);
    expect(cedar).toContain(`line ${brokenLine}`);
    expect(await page.getByRole('button', { name: 'Review changes' }).isDisabled()).toBe(true);

    const source =
      (await readFile(join(scenario.dir, '30-policies.yaml'), 'utf8')).split('\n---\n')[0] ?? '';
    await editor.fill(
      source.replace(
        'actions: [es_orders.aggregate, es_orders.write]',
        'actions: [es_orders.aggregate, es_orders.write, es_orders.count]',
      ),
    );
    await page.getByRole('button', { name: 'Review changes' }).click();
    await waitText(page.getByRole('table'), /es_orders\.count/);
    await page.getByRole('button', { name: 'Apply' }).click();
    await waitText(page.getByRole('status'), /Applied support-orders version 2/);

    // The synthesizer follows the new bundle: the tool is gone, the others stay.
    await page.goto(`${CONSOLE_URL}/playground`);
    const deadline = Date.now() + 30_000;
    for (;;) {
      await page.getByLabel('Agent').selectOption('support');
      await page.getByRole('button', { name: 'es_orders_search', exact: true }).waitFor();
      if ((await page.getByRole('button', { name: 'es_orders_count', exact: true }).count()) === 0)
        break;
      if (Date.now() > deadline) throw new Error('es_orders_count is still offered to support');
      await page.reload();
    }
    // And explain says why.
    await page.goto(`${CONSOLE_URL}/agents`);
    await page.getByRole('combobox', { name: /^Agent/ }).selectOption('support');
    await page.getByLabel('Resource').selectOption('es_orders');
    await page.getByLabel('Action').fill('count');
    await page.getByRole('button', { name: 'Explain' }).click();
    await waitText(page.getByTestId('explain-effect'), /^deny$/);
  }, 120_000);

  it('console - an approver in a second browser approves a parked write while the admin watches it complete', async () => {
    const page = adminPage;
    await page.goto(`${CONSOLE_URL}/playground`);
    await page.getByLabel('Agent').selectOption('order_ops');
    await page.getByRole('button', { name: 'es_orders_write', exact: true }).click();
    await page.getByLabel('Edit as JSON').check();
    await page
      .getByLabel('Arguments (JSON)')
      .fill('{"id":"12346","document":{"status":"shipped"}}');
    await page.getByRole('button', { name: 'Run es_orders_write' }).click();
    await waitText(page.getByTestId('call-status'), /^pending_approval$/);

    const { context, page: approver } = await newSignedIn('bob');
    try {
      await approver.goto(`${CONSOLE_URL}/approvals`);
      const card = approver.getByTestId('approval').filter({ hasText: 'es_orders_write' });
      await waitText(card, /12346/);
      expect(await card.first().textContent()).toContain('"status": "shipped"');
      await screenshot(approver, 'approvals');
      await card.first().getByLabel('Reason').fill('customer asked');
      await card.first().getByRole('button', { name: 'Approve' }).click();
      await waitText(approver.getByTestId('decided-approval'), /approved/i);
      // The admin's page sees the parked call complete, live.
      await waitText(page.getByTestId('call-status'), /^ok$/, 30_000);
      const doc = await scenario.es.get<{ status: string }>({ index: scenario.index, id: '12346' });
      expect(doc._source?.status).toBe('shipped');
    } finally {
      await context.close();
    }
  }, 120_000);

  it('console - a viewer sees no way to change anything, and forged mutations are refused by the server', async () => {
    // Something for the viewer to look at in the queue.
    const page = adminPage;
    await page.goto(`${CONSOLE_URL}/playground`);
    await page.getByLabel('Agent').selectOption('order_ops');
    await page.getByRole('button', { name: 'es_orders_write', exact: true }).click();
    await page.getByLabel('Edit as JSON').check();
    await page
      .getByLabel('Arguments (JSON)')
      .fill('{"id":"12346","document":{"status":"delivered"}}');
    await page.getByRole('button', { name: 'Run es_orders_write' }).click();
    await waitText(page.getByTestId('call-status'), /^pending_approval$/);
    const before = await resourceVersion();

    const { context, page: viewer } = await newSignedIn('vic');
    try {
      await viewer.goto(`${CONSOLE_URL}/resources`);
      await viewer.getByRole('link', { name: 'es_orders' }).waitFor();
      expect(await viewer.getByRole('link', { name: 'Register a resource' }).count()).toBe(0);
      await viewer.getByRole('link', { name: 'es_orders' }).click();
      await viewer.getByRole('button', { name: /Diff v1/ }).waitFor();
      for (const name of ['Edit', 'Delete', /Roll back/]) {
        expect(await viewer.getByRole('button', { name }).count()).toBe(0);
      }
      await viewer.goto(`${CONSOLE_URL}/approvals`);
      await waitText(viewer.getByTestId('approval'), /es_orders_write/);
      expect(await viewer.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      expect(await viewer.getByRole('button', { name: 'Reject' }).count()).toBe(0);
      await viewer.goto(`${CONSOLE_URL}/agents`);
      await viewer.getByRole('link', { name: 'support-orders' }).waitFor();
      expect(await viewer.getByRole('link', { name: 'New policy' }).count()).toBe(0);
      expect(await viewer.getByRole('heading', { name: 'Explain a decision' }).count()).toBe(0);
      await viewer.goto(`${CONSOLE_URL}/policies/support-orders`);
      await viewer.getByRole('heading', { name: 'Policy support-orders' }).waitFor();
      expect(await viewer.getByRole('button', { name: 'Apply' }).count()).toBe(0);

      // The server refuses what the page would not offer, whatever the page sends.
      const rollback = { toVersion: 1 };
      const asViewer = await pageFetch(viewer, '/api/resources/es_orders/rollback', {
        body: rollback,
        csrf: 'session',
      });
      expect(asViewer.status).toBe(403);
      expect(asViewer.body.error?.code).toBe('FORBIDDEN');
      const approvals = (await (
        await viewer.request.get(`${CONSOLE_URL}/api/approvals`)
      ).json()) as { approvals: Array<{ id: string }> };
      const id = approvals.approvals[0]?.id ?? '';
      expect(id).not.toBe('');
      const approve = await pageFetch(viewer, `/api/approvals/${id}/approve`, {
        body: { reason: 'forged' },
        csrf: 'session',
      });
      expect(approve.status).toBe(403);
      const noCsrf = await pageFetch(page, '/api/resources/es_orders/rollback', { body: rollback });
      expect([noCsrf.status, noCsrf.body.error?.code]).toEqual([403, 'CSRF_REFUSED']);
      const wrongCsrf = await pageFetch(page, '/api/resources/es_orders/rollback', {
        body: rollback,
        csrf: 'not-the-token',
      });
      expect([wrongCsrf.status, wrongCsrf.body.error?.code]).toEqual([403, 'CSRF_REFUSED']);
      const session = (await (await admin.request.get(`${CONSOLE_URL}/api/session`)).json()) as {
        csrf: string;
      };
      const foreign = await admin.request.post(`${CONSOLE_URL}/api/resources/es_orders/rollback`, {
        headers: {
          origin: 'http://evil.example',
          'x-tollgate-csrf': session.csrf,
          'content-type': 'application/json',
        },
        data: rollback,
      });
      expect(foreign.status()).toBe(403);
      const plain = await admin.request.post(`${CONSOLE_URL}/api/resources/es_orders/rollback`, {
        headers: { 'x-tollgate-csrf': session.csrf, 'content-type': 'text/plain' },
        data: JSON.stringify(rollback),
      });
      expect(plain.status()).toBe(415);
      const anonymous = await fetch(`${CONSOLE_URL}/api/resources`);
      expect(anonymous.status).toBe(401);
      // Nothing changed.
      expect(await resourceVersion()).toBe(before);
      const still = (await (
        await viewer.request.get(`${CONSOLE_URL}/api/approvals/${id}`)
      ).json()) as { approval: { status: string } };
      expect(still.approval.status).toBe('APPROVAL_STATUS_PENDING');
    } finally {
      await context.close();
    }
  }, 120_000);

  it('console - every page has no serious accessibility violations (axe) and is photographed', async () => {
    const page = adminPage;
    const pages: Array<[string, string, string]> = [
      ['overview', '/', 'Overview'],
      ['resources', '/resources', 'Resources'],
      ['resource', '/resources/es_orders', 'es_orders'],
      ['register', '/resources/new', 'Register a resource'],
      ['agents', '/agents', 'Agents and policies'],
      ['policy', '/policies/support-orders', 'Policy support-orders'],
      ['playground', '/playground', 'Tools playground'],
      ['approvals', '/approvals', 'Approvals'],
      ['audit', '/audit', 'Audit'],
      ['memory', '/memory', 'Memory'],
    ];
    const found: string[] = [];
    for (const [name, path, heading] of pages) {
      await page.goto(`${CONSOLE_URL}${path}`);
      await page.getByRole('heading', { name: heading }).first().waitFor();
      await page.waitForTimeout(400);
      if (name === 'overview') await page.locator('.chart canvas').first().waitFor();
      if (name === 'memory') await page.getByLabel('Agent').selectOption('support');
      found.push(...(await seriousViolations(page)).map((v) => `${path}: ${v}`));
      if (!['playground', 'approvals'].includes(name)) await screenshot(page, name);
    }
    const replay = (await (
      await admin.request.get(`${CONSOLE_URL}/api/audit?type=call.completed`)
    ).json()) as {
      records: Array<{ event: { callCompleted?: { sessionId: string } } }>;
    };
    const sessionId = replay.records.map((r) => r.event.callCompleted?.sessionId).find(Boolean);
    expect(sessionId).toBeDefined();
    await page.goto(`${CONSOLE_URL}/audit/sessions/${sessionId}`);
    await waitText(page.getByRole('list', { name: 'Session timeline' }), /es_orders/);
    found.push(...(await seriousViolations(page)).map((v) => `replay: ${v}`));
    await screenshot(page, 'replay');
    const anonymous = await browser.newContext();
    const signedOut = await anonymous.newPage();
    await signedOut.goto(`${CONSOLE_URL}/`);
    await signedOut.getByRole('link', { name: 'Sign in with your identity provider' }).waitFor();
    found.push(...(await seriousViolations(signedOut)).map((v) => `sign-in: ${v}`));
    await screenshot(signedOut, 'sign-in');
    await anonymous.close();
    expect(found).toEqual([]);
  }, 180_000);
});
