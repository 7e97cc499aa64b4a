/**
 * Registering a resource by conversation, through `tollgate chat` and every service: the person
 * describes an index in a sentence, the registry drafts it against the real Elasticsearch and
 * the draft is echoed back with the discovered types; one correction in words; only an explicit
 * yes saves it, and the tool synthesized from it answers the next question. Also: a pasted
 * password is refused and kept nowhere, a "no" saves nothing, and an unreachable endpoint gives
 * a clear reason. The scripted model speaks the real OpenAI wire protocol.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOP_ROW_COUNT, dropShopTable, seedShopTable } from '../fixtures/demo-shop.js';
import { eventually, infra, postgresAdmin, uniqueName } from '../support/infra.js';
import { E2E_CREDENTIALS, tollgate, tollgateJson } from './support/cli.js';
import { ordersScenario } from './support/scenario.js';
import type { OrdersScenario } from './support/scenario.js';
import { bringDown, bringUp } from './support/stack.js';

interface RegistrationDoc {
  state: string;
  reply: string;
  draftId?: string;
  descriptor?: { spec?: { schema?: { fields?: Record<string, { description?: string }> } } };
  resource?: { name: string; version: number };
}
interface TurnDoc {
  message: string;
  run?: {
    answer: string | null;
    steps: Array<{ toolCalls: Array<{ tool: string; status: string; result?: unknown }> }>;
  };
  registration?: RegistrationDoc;
}
interface ChatDoc {
  sessionId: string;
  turns: TurnDoc[];
}

let stack: { startedHere: boolean } | undefined;
let scenario: OrdersScenario;
let as: string[];
let credential: string;

beforeAll(async () => {
  stack = await bringUp();
  scenario = await ordersScenario({ seed: true });
  as = ['--tenant', scenario.tenant];
  credential = `file://${join(E2E_CREDENTIALS, scenario.tenant, 'prod', 'es-orders.json')}`;
  const applied = await tollgate([...as, 'apply', '-f', scenario.dir], { timeoutMs: 120_000 });
  if (applied.code !== 0) throw new Error(`apply failed: ${applied.stderr}`);
}, 900_000);

afterAll(async () => {
  await scenario?.cleanup();
  await bringDown(stack);
}, 180_000);

function chat(agent: string, messages: string[]): Promise<ChatDoc> {
  return tollgateJson<ChatDoc>([...as, 'chat', '--as', agent, '--no-memory', '-m', ...messages], {
    timeoutMs: 180_000,
  });
}

function describe_(name: string, endpoint = infra.esUrl): string {
  return `I have an Elasticsearch at ${endpoint}, index ${scenario.index}, call it ${name}, credential ${credential}, roles support; id is keyword, amount is a number, created_at is a date.`;
}

async function resource(name: string) {
  return tollgate(['--json', ...as, 'resources', 'get', name]);
}

describe('e2e - registration by conversation', () => {
  it('e2e - described, echoed with discovered types, corrected once, saved on yes, then used', async () => {
    const run = await chat('tollgate-cli', [
      describe_('orders_chat'),
      'no, amount is the total in euros',
      'yes',
    ]);
    const [described, corrected, confirmed] = run.turns;
    // The model chose the registration tool; the echo is the registry's draft, from discovery.
    const tool = described!.run!.steps.flatMap((s) => s.toolCalls)[0];
    expect(tool?.tool).toBe('register_resource');
    expect(described!.run!.answer).toMatch(/^I understood: /);
    expect(described!.run!.answer).toContain('amount (double');
    // Discovery read the real mapping: fields nobody mentioned are reported, not enabled.
    expect(described!.run!.answer).toMatch(/Found but not enabled: .*status \(keyword/);
    expect(described!.run!.answer).toMatch(/Confirm\?$/);
    expect(corrected!.registration?.reply).toContain(
      'amount (double: range, sort, return) — the total in euros',
    );
    expect(corrected!.registration?.state).toBe('revised');
    expect(corrected!.registration?.descriptor?.spec?.schema?.fields?.amount?.description).toBe(
      'the total in euros',
    );
    // Nothing exists until the yes.
    expect(confirmed!.registration?.state).toBe('saved');
    expect(confirmed!.registration?.resource).toMatchObject({ name: 'orders_chat', version: 1 });
    const saved = await resource('orders_chat');
    expect(saved.code).toBe(0);
    const doc = JSON.parse(saved.stdout) as {
      version: number;
      descriptor: { spec: { schema: { fields: Record<string, { description?: string }> } } };
    };
    expect(doc.version).toBe(1);
    expect(doc.descriptor.spec.schema.fields.amount?.description).toBe('the total in euros');

    // The tool synthesized from what was said answers the question the product exists for.
    const asked = await chat('support', ['搜索 id 为 12345 的订单']);
    const lookups = asked.turns[0]!.run!.steps.flatMap((s) => s.toolCalls);
    expect(lookups.length).toBeGreaterThan(0);
    expect(lookups[0]!.status).toBe('ok');
    expect(asked.turns[0]!.run!.answer).toContain('12345');
  }, 300_000);

  it('e2e - a pasted password is refused, kept nowhere and the reply says how to give a reference', async () => {
    const secret = 'Zq7!hunter2-Xp9';
    const run = await chat('tollgate-cli', [
      describe_('orders_secret'),
      `the password is ${secret}`,
      'no',
    ]);
    const refused = run.turns[1]!.registration!;
    expect(refused.state).toBe('refused_secret');
    expect(refused.reply).not.toContain(secret);
    expect(refused.reply).toMatch(/reference/);
    expect(refused.reply).toContain('env://');
    // The draft is still the one from before the secret: the secret went into nothing.
    expect(JSON.stringify(refused.descriptor ?? {})).not.toContain(secret);
    expect(run.turns[1]!.message).not.toContain(secret);
    expect(run.turns[2]!.registration?.state).toBe('discarded');
    expect((await resource('orders_secret')).code).not.toBe(0);
  }, 300_000);

  it('e2e - "no" saves nothing', async () => {
    const run = await chat('tollgate-cli', [describe_('orders_no'), 'no']);
    expect(run.turns[0]!.run!.answer).toMatch(/^I understood: /);
    expect(run.turns[1]!.registration).toMatchObject({ state: 'discarded' });
    const missing = await resource('orders_no');
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain('NOT_FOUND');
  }, 300_000);

  it('e2e - an endpoint that cannot be reached gives a clear reason and cannot be saved', async () => {
    // Port 1 on loopback is no server, and no destination the stack's egress rules allow
    // (`tollgate up` allows the local data servers only): the registry refuses the draft
    // before connecting, so there is nothing a "yes" could save.
    const run = await chat('tollgate-cli', [
      describe_('orders_nowhere', 'http://127.0.0.1:1'),
      'yes',
    ]);
    const answer = run.turns[0]!.run!.answer ?? '';
    expect(answer).toMatch(/unreachable|could not (reach|connect)|refused/i);
    expect(run.turns[1]!.registration?.state ?? 'no draft').not.toBe('saved');
    expect((await resource('orders_nowhere')).code).not.toBe(0);
  }, 300_000);
  it('e2e - a PostgreSQL table described in a sentence is drafted from the real catalog, saved on yes and searched by support', async () => {
    const admin = postgresAdmin();
    const db = new pg.Pool({ ...admin, max: 1 });
    const table = {
      schema: uniqueName('e2e_chat_shop'),
      login: uniqueName('tg_e2e_chat'),
      password: randomBytes(16).toString('hex'),
    };
    const name = 'pg_chat_orders';
    try {
      expect(await seedShopTable(db, table)).toBe(SHOP_ROW_COUNT);
      const dir = join(E2E_CREDENTIALS, scenario.tenant, 'prod');
      await mkdir(dir, { recursive: true });
      await writeFile(
        join(dir, 'chat-shop.json'),
        JSON.stringify({ username: table.login, password: table.password }),
        { mode: 0o600 },
      );
      const ref = `file://${join(dir, 'chat-shop.json')}`;
      const run = await chat('tollgate-cli', [
        `I have a PostgreSQL at postgres://${admin.host}:${admin.port}/${admin.database}, table ${table.schema}.orders, ` +
          `call it ${name}, credential ${ref}, roles support; id is an integer, status is text, total is a decimal.`,
        'yes',
      ]);
      const [described, confirmed] = run.turns;
      expect(described!.run!.steps.flatMap((s) => s.toolCalls)[0]?.tool).toBe('register_resource');
      const echo = described!.run!.answer ?? '';
      expect(echo).toMatch(/^I understood: /);
      // The types are the catalog's, read by discovery: numeric(12,2) is a decimal column.
      expect(echo).toContain('total (decimal');
      // Columns nobody mentioned are reported, not enabled.
      expect(echo).toMatch(/Found but not enabled: .*customer_email/);
      expect(echo).not.toContain(table.password);
      expect(confirmed!.registration?.state).toBe('saved');
      expect(confirmed!.registration?.resource).toMatchObject({ name, version: 1 });

      // The tool synthesized from the sentence answers through the governed path.
      const call = await eventually(async () => {
        const answer = await tollgate([
          '--json',
          ...as,
          'call',
          `${name}_search`,
          '--as',
          'support',
          '--args',
          JSON.stringify({ filters: [{ field: 'id', op: 'eq', value: '12345' }] }),
        ]);
        return answer.code === 0 ? (JSON.parse(answer.stdout) as { data: unknown }) : undefined;
      }, 30_000);
      expect(call.data).toEqual([{ id: '12345', status: 'shipped', total: '86.65' }]);
    } finally {
      await tollgate([...as, 'resources', 'delete', name]);
      await dropShopTable(db, table);
      await db.end();
    }
  }, 300_000);
});
