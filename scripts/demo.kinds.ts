/**
 * The demo's steps for two more kinds of data system: the web shop's PostgreSQL table (kind
 * `postgres`, seeded by the demo itself) and the help desk's HTTP API described by OpenAPI
 * (kind `http`, the Directus deploy/local runs). Each is declared, discovered against the real
 * server, applied, its tools shown, and called once as support through policy, the executor
 * and audit. Credentials come from the local stack as env:// references in team-a/prod's
 * namespace, handed to the services when `tollgate up` starts them; no secret is printed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { seedShopTable, shopResource } from '../test/fixtures/demo-shop.js';
import type { ShopTable } from '../test/fixtures/demo-shop.js';
import { TICKETS, helpDeskResource, seedTickets } from '../test/fixtures/help-desk.js';
import { auditRecord } from './demo.audit.js';
import { DemoError } from './demo.narrator.js';
import type { Narrator } from './demo.narrator.js';
import { DEMO_DIR, call, declareAndApply, toolsOf } from './demo.resource.js';

/** The env:// references the two resources name (team-a/prod's namespace). */
const SHOP_CREDENTIAL = 'TOLLGATE_TEAM_A__PROD__PG_SHOP';
const DESK_CREDENTIAL = 'TOLLGATE_TEAM_A__PROD__HELP_DESK';

/** The PostgreSQL login the shop resource connects as: it may read demo_shop.orders, nothing else. */
const SHOP: Omit<ShopTable, 'password'> = { schema: 'demo_shop', login: 'tollgate_demo_shop' };

// pg is a dependency of the test package, whose fixture seeds the table.
const requireFromTests = createRequire(new URL('../test/package.json', import.meta.url));
const { Pool } = requireFromTests('pg') as typeof pg;

/** deploy/local's state folder (`TOLLGATE_STATE_DIR`, else the checkout's `.tollgate/local`). */
function stateDir(env: NodeJS.ProcessEnv): string {
  return env.TOLLGATE_STATE_DIR
    ? resolve(env.TOLLGATE_STATE_DIR)
    : fileURLToPath(new URL('../.tollgate/local', import.meta.url));
}

/** `KEY=value` lines of a deploy/local credential file; empty when there is none. */
function envFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  return Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .map((line) => /^([A-Z_]+)=(.*)$/.exec(line.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}

/** The shop login's password: made once, kept in .tollgate/demo (mode 600), so reruns match. */
function shopPassword(): string {
  const file = join(DEMO_DIR, 'shop-login.secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(18).toString('hex');
  mkdirSync(DEMO_DIR, { recursive: true });
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * The secrets the two resources' references name, as the services' environment holds them:
 * the shop login (always) and the Directus connector token (once deploy/local provisioned it).
 */
export function kindCredentials(env: NodeJS.ProcessEnv): Record<string, string> {
  const token = envFile(join(stateDir(env), 'directus', 'connector.env')).DIRECTUS_TOKEN;
  return {
    [SHOP_CREDENTIAL]: JSON.stringify({ username: SHOP.login, password: shopPassword() }),
    ...(token ? { [DESK_CREDENTIAL]: token } : {}),
  };
}

/**
 * After `tollgate up`: a credential that exists only now (Directus provisioned by this very
 * run) reaches the services by starting them again with it (`up` restarts what changed).
 */
export async function refreshKindCredentials(n: Narrator): Promise<void> {
  const changed = Object.entries(kindCredentials(n.env)).filter(([k, v]) => n.env[k] !== v);
  if (changed.length === 0) return;
  for (const [name, value] of changed) n.env[name] = value;
  n.say(
    `New credentials from the local stack (${changed.map(([k]) => k).join(', ')}); the services start again to read them:`,
  );
  await n.tollgate(['up', '--no-infra']);
}

/** Why the infrastructure server `name` cannot be used now, or undefined when it is healthy. */
async function unavailable(n: Narrator, name: string): Promise<string | undefined> {
  const { doc } = await n.run<{ infra: Array<{ name: string; state: string; healthy: boolean }> }>([
    'status',
  ]);
  const server = doc?.infra.find((s) => s.name === name);
  if (server?.healthy === true) return undefined;
  return `${name} is ${server?.state ?? 'unknown'} (bash deploy/local/up.sh ${name} starts it; status: bash deploy/local/status.sh)`;
}

/**
 * Step 8: a PostgreSQL table. The demo makes `demo_shop.orders` and a read-only login for it,
 * then declares it as a Resource of kind `postgres`, discovers the column types from
 * pg_catalog, applies it and looks order 12345 up as support.
 */
export async function sqlTable(n: Narrator, user: string): Promise<void> {
  const down = await unavailable(n, 'postgres');
  if (down !== undefined) return n.skip('the PostgreSQL step', down);
  const adminEnv = envFile(join(stateDir(n.env), 'postgres', 'admin.env'));
  const adminUrl = n.env.TOLLGATE_PG_URL || adminEnv.TOLLGATE_PG_URL;
  if (!adminUrl)
    return n.skip('the PostgreSQL step', `no admin login in ${stateDir(n.env)}/postgres/admin.env`);
  const admin = new Pool({ connectionString: adminUrl, max: 1 });
  let rows: number;
  try {
    rows = await seedShopTable(admin, { ...SHOP, password: shopPassword() });
  } finally {
    await admin.end();
  }
  n.ok(
    `${SHOP.schema}.orders: ${rows} rows, and the login ${SHOP.login}, which may only read it (its password: env://${SHOP_CREDENTIAL}, never printed)`,
  );
  n.say(
    'The operator declares the table: which columns may be filtered or returned, and who sees what:',
  );
  await declareAndApply(
    n,
    'shop-orders',
    shopResource({
      tenant: 'team-a',
      server: new URL(adminUrl),
      schema: SHOP.schema,
      credentialRef: `env://${SHOP_CREDENTIAL}`,
    }),
  );
  await toolsOf(n, 'shop_orders');
  n.say(
    'Notice: the same order 12345, now from the shop database: customer_email is masked, internal_margin is for order_ops only.',
  );
  const outcome = await call(n, user, 'shop_orders_search', {
    filters: [{ field: 'id', op: 'eq', value: '12345' }],
  });
  const row = (outcome.data as Array<Record<string, unknown>> | undefined)?.[0];
  if (row?.id !== '12345' || 'internal_margin' in row || row.customer_email === undefined)
    throw new DemoError(`shop_orders_search did not return order 12345 as support may see it`);
  if (String(row.customer_email).includes('example.com'))
    throw new DemoError('customer_email came back unmasked');
  await auditRecord(n, outcome.callId, outcome.meta?.traceId ?? '', 'call.completed');
}

/**
 * Step 9: an HTTP API. Two operations of Directus's OpenAPI document (list and read tickets)
 * declared as a Resource of kind `http`, discovered from the document, applied, and support
 * searching the tickets about order 12345.
 */
export async function httpApi(n: Narrator, user: string): Promise<void> {
  const down = await unavailable(n, 'directus');
  if (down !== undefined) return n.skip('the HTTP API step', down);
  const access = envFile(join(stateDir(n.env), 'directus', 'connector.env'));
  const token = n.env[DESK_CREDENTIAL];
  if (!token || access.DIRECTUS_TOKEN !== token)
    return n.skip(
      'the HTTP API step',
      `the services do not hold the Directus connector token (${stateDir(n.env)}/directus/connector.env)`,
    );
  const url = `http://127.0.0.1:${n.env.TOLLGATE_DIRECTUS_PORT || access.DIRECTUS_PORT || 8055}`;
  const opened = await seedTickets(url, token);
  n.ok(
    `the help desk at ${url} has the story's ${TICKETS.length} tickets${opened > 0 ? ` (${opened} opened now)` : ''}; its connector token: env://${DESK_CREDENTIAL}, never printed`,
  );
  n.say(
    `Its OpenAPI document (${url}/server/specs/oas) describes ${await operationCount(url, token)} operations; the operator selects two, read-only:`,
  );
  await declareAndApply(
    n,
    'help-desk',
    helpDeskResource({ tenant: 'team-a', url, credentialRef: `env://${DESK_CREDENTIAL}` }),
  );
  await toolsOf(n, 'help_desk');
  n.say(
    "Notice: the URL, method and headers come from the document, never from the model; requester_email is masked, assignee is for order_ops only, and the API's answer is validated before anything is shaped.",
  );
  const outcome = await call(n, user, 'help_desk_list_tickets', { search: '12345', limit: 5 });
  const rows = (outcome.data as Array<Record<string, unknown>> | undefined) ?? [];
  if (!rows.some((r) => String(r.subject).includes('12345')) || rows.some((r) => 'assignee' in r))
    throw new DemoError('help_desk_list_tickets did not find the ticket about order 12345');
  await auditRecord(n, outcome.callId, outcome.meta?.traceId ?? '', 'call.completed');
}

/** How many operations an OpenAPI document describes, as the connector's token reads it. */
async function operationCount(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/server/specs/oas`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!res.ok) throw new DemoError(`Directus answered ${res.status} for its OpenAPI document`);
  const doc = (await res.json()) as { paths?: Record<string, Record<string, unknown>> };
  const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);
  return Object.values(doc.paths ?? {}).reduce(
    (sum, item) => sum + Object.keys(item).filter((m) => methods.has(m)).length,
    0,
  );
}
