/** The demo's steps (see demo.ts). */
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import type { Client as EsClient } from '@elastic/elasticsearch';
import {
  activePreferences,
  compareShapes,
  openAgentModel,
  renderData,
  renderOutcome,
  renderToolCall,
  runCli,
  serviceAddress,
} from '../packages/cli/dist/index.js';
import type { PlainOutcome, ToolShape } from '../packages/cli/dist/index.js';
import { SKILL_FUNCTION_PREFIX, TollgateClient } from '../packages/sdk/dist/index.js';
import type { AgentToolCall } from '../packages/sdk/dist/index.js';
import { ORDER_COUNT, seedOrders } from '../test/fixtures/orders.js';
import { auditRecord } from './demo.audit.js';
import { everywhere } from './demo.everywhere.js';
import { httpApi, refreshKindCredentials, sqlTable } from './demo.kinds.js';
import { DemoError } from './demo.narrator.js';
import type { Narrator } from './demo.narrator.js';

// The Elasticsearch client is a dependency of the test package, whose fixture seeds the index.
const requireFromTests = createRequire(new URL('../test/package.json', import.meta.url));
const { Client } = requireFromTests('@elastic/elasticsearch') as { Client: typeof EsClient };

const INDEX = 'orders';
const HIDDEN = {
  user_id: 'order_ops only',
  'customer.email': 'order_ops only',
  internal_note: 'never returned',
  tenant_id: 'never returned',
};

interface ToolDoc {
  name: string;
  allows: ToolShape;
}
interface CallDoc extends AgentToolCall {
  result: { status: string; data?: Array<Record<string, unknown>> } | null;
}
interface ChatDoc {
  remembered: Array<{ text: string }>;
  turns: Array<{
    message: string;
    run: { answer: string | null; steps: Array<{ toolCalls: CallDoc[] }> };
  }>;
}

export async function runDemo(n: Narrator): Promise<void> {
  const user = `alice-${randomBytes(2).toString('hex')}`;
  const model = await openAgentModel(n.env);
  await model.close();
  n.line(n.style.bold('Tollgate — governed tools for LLM agents over real data systems'));
  n.say(`model: ${model.scripted ? n.style.magenta(model.label) : model.label}`);
  n.say(
    `the person chatting with the support agent: ${user} (new this run, so nothing is remembered yet)`,
  );

  n.title('0', 'Provision and start everything');
  n.say(
    'The infrastructure (NATS with JetStream, FerretDB, Elasticsearch, PostgreSQL, MariaDB, Directus, Jaeger — provisioned on first use), then the services.',
  );
  await bringUp(n);
  await refreshKindCredentials(n);
  await seed(n);
  n.say('Who may act, and how (the agents and their policies, examples/orders):');
  await n.tollgate(['apply', '-f', 'examples/orders/10-agents.yaml']);
  await n.tollgate(['apply', '-f', 'examples/orders/30-policies.yaml']);

  n.title('1', 'Telling Tollgate about the orders index, in a sentence');
  await registerByConversation(n, user);

  n.say(
    "\nThe operator's reviewed declaration (examples/orders/20-orders.yaml: every field described, what each role sees) becomes version 2:",
  );
  await n.tollgate(['apply', '-f', 'examples/orders']);

  n.title('2', 'The tools each agent gets');
  n.say('Tools are projections of the resource × what each agent may do — nobody wrote them.');
  await n.tollgate(['tools', 'ls', '--as', 'support']);
  await n.tollgate(['tools', 'ls', '--as', 'order_ops']);
  await differences(n);

  n.title('3', 'An order looked up through the agent loop');
  const before = await preferencesOf(n, user);
  if (before.length > 0) throw new DemoError(`${user} unexpectedly has preferences already`);
  for (const message of ['搜索 id 为 12345 的订单', 'find order 12345']) {
    const call = (await chat(n, user, message))[0];
    if (call?.status !== 'ok' || call.callId === undefined)
      throw new DemoError(`the lookup did not succeed: ${JSON.stringify(call)}`);
    visibleFields(n, call);
    await auditRecord(n, call.callId, call.meta?.traceId ?? '', 'call.completed');
  }

  n.title('4', 'Guard rails');
  n.say(
    'a) support filters on a field only order_ops may use — the executor checks every call against the schema it handed out:',
  );
  await n.tollgate(
    [
      'call',
      'es_orders_search',
      '--as',
      'support',
      '--args',
      '{"filters":[{"field":"customer.email","op":"eq","value":"bo.novak.1234@example.com"}]}',
    ],
    1,
  );
  await deniedTool(n);
  n.say(
    '\nc) the model asks for more rows than support may read; the error names the path and the cap, the model corrects itself:',
  );
  const corrected = await chat(n, user, 'show me the 50 largest paid orders');
  if (!corrected.some((c) => c.status === 'error' && c.error?.category === 'fix_arguments')) {
    n.say('(the model stayed within the cap from the start, so there was nothing to correct)');
  }
  await approvedWrite(n);
  await foreignCredential(n);

  n.title('5', 'A preference learned, and recalled next time');
  n.say(`${user} has now asked about orders several times; memory learns from completed calls.`);
  const learned = await n.until(
    'the frequent_resource preference',
    async () => (await preferencesOf(n, user)).find((p) => p.key === 'frequent_resource:es_orders'),
    90_000,
  );
  n.ok(`learned for ${user}: "${learned.text}" (kind ${learned.kind}, derived from usage)`);
  n.say("Next time — a new session: the agent loop recalls it into the model's instructions.");
  await n.tollgate(['chat', '--as', 'support', '--user', user, '-m', 'find order 10042']);

  n.title('6', 'A procedure becomes a skill once a person reviews it; the next session uses it');
  await skillLadder(n, user);

  n.title('7', 'Any system: an upstream MCP server, governed like the index');
  await upstreamMcp(n, user);

  n.title('8', 'A PostgreSQL table, governed like the index');
  await sqlTable(n, user);

  n.title('9', 'An HTTP API from its OpenAPI document, governed the same way');
  await httpApi(n, user);

  n.title('10', 'The same governed tools, everywhere else');
  await everywhere(n);

  n.title('✓', 'Done');
  n.line('Everything keeps running. Try:');
  for (const hint of [
    'pnpm tollgate chat --as support            # talk to the agent yourself',
    'pnpm tollgate audit tail --follow          # watch calls arrive',
    'pnpm tollgate tools ls --as order_ops --format openai',
    'pnpm tollgate down                         # stop everything',
  ])
    n.line(`  ${hint}`);
}

/** Servers the story cannot do without; the others only serve a step of their own. */
const ESSENTIAL = ['nats', 'elasticsearch', 'ferretdb'];

/**
 * `tollgate up`. When deploy/local cannot bring every server up, the demo still runs if those
 * it cannot do without are healthy: it names the others, starts the services without them, and
 * the steps that need them say so when they come (under CI=true, it fails instead).
 */
async function bringUp(n: Narrator): Promise<void> {
  if ((await n.tollgate(['up'], 'any')) === 0) return;
  const { doc } = await n.run<{ infra: Array<{ name: string; healthy: boolean }> } | null>([
    'status',
  ]);
  const down = (doc?.infra ?? []).filter((s) => !s.healthy).map((s) => s.name);
  const essential = down.filter((name) => ESSENTIAL.includes(name));
  if (doc === null || essential.length > 0 || down.length === 0)
    throw new DemoError(
      `\`tollgate up\` failed${essential.length > 0 ? `; ${essential.join(', ')} not running` : ''}`,
    );
  n.skip(
    `starting ${down.join(', ')}`,
    'deploy/local could not bring them up (see the lines above); the steps that need them will say so',
  );
  await n.tollgate(['up', '--no-infra']);
}

/**
 * e) The Resource's credential lies in team-a/prod's namespace; one naming team-b's secret is
 * refused by the registry before anything is stored (the executor would refuse it too).
 */
async function foreignCredential(n: Narrator): Promise<void> {
  n.say(
    "\ne) es_orders names env://TOLLGATE_TEAM_A__PROD__ES_ORDERS, inside team-a/prod's credential namespace. A Resource naming team-b's Vault secret is refused before anything is stored:",
  );
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-demo-'));
  try {
    const file = join(dir, 'borrowed.yaml');
    const text = await readFile(
      new URL('../examples/orders/20-orders.yaml', import.meta.url),
      'utf8',
    );
    await writeFile(
      file,
      text
        .replace('name: es_orders', 'name: es_borrowed')
        .replace(
          /credentialRef: \S+/,
          'credentialRef: vault://secret/team-b/prod/es-orders#api_key',
        ),
    );
    await n.tollgate(['apply', '-f', file], 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function seed(n: Narrator): Promise<void> {
  const es = new Client({ node: `http://127.0.0.1:${n.env.TOLLGATE_ES_PORT ?? 9200}` });
  try {
    const started = Date.now();
    n.say(
      `\nSeeding the "${INDEX}" index with ${ORDER_COUNT.toLocaleString('en')} realistic orders (test/fixtures/orders.ts)…`,
    );
    const { loaded } = await seedOrders(es, INDEX);
    const { count } = await es.count({ index: INDEX });
    n.ok(
      `${INDEX}: ${count.toLocaleString('en')} documents ${loaded ? `loaded in ${((Date.now() - started) / 1000).toFixed(1)}s` : '(already there)'}`,
    );
  } finally {
    await es.close();
  }
}

async function differences(n: Narrator): Promise<void> {
  const support = await n.json<{ tools: ToolDoc[] }>(['tools', 'ls', '--as', 'support']);
  const ops = await n.json<{ tools: ToolDoc[] }>(['tools', 'ls', '--as', 'order_ops']);
  const search = (doc: { tools: ToolDoc[] }) =>
    doc.tools.find((t) => t.name === 'es_orders_search')!.allows;
  n.line(
    `\n${n.style.bold('How they differ')} (es_orders_search; operators follow each field's type):`,
  );
  for (const d of compareShapes(search(ops), search(support))) {
    const [a, b] =
      d.aspect === 'limit'
        ? [`order_ops ${d.onlyA.join(',')}`, `support ${d.onlyB.join(',')}`]
        : [
            `only order_ops: ${d.onlyA.join(', ')}`,
            d.onlyB.length > 0 ? `only support: ${d.onlyB.join(', ')}` : '',
          ];
    n.line(`  ${d.aspect.padEnd(16)} ${[a, b].filter(Boolean).join('   ')}`);
  }
  const onlyOps = ops.tools
    .map((t) => t.name)
    .filter((name) => !support.tools.some((t) => t.name === name));
  n.line(
    `  ${'tools'.padEnd(16)} only order_ops: ${onlyOps.join(', ')} (support is denied aggregate; writes need approval)`,
  );
}

/** What the person says to register the orders index, and to correct and confirm it. */
const DESCRIPTION =
  '我有一个 Elasticsearch，地址 http://127.0.0.1:9200，索引 orders，id 是 keyword，amount 是 double，created_at 是 date，凭据 env://TOLLGATE_TEAM_A__PROD__ES_ORDERS，角色 support';
const CORRECTION = 'no, amount is the total in euros';

interface RegistrationChatDoc {
  turns: Array<{
    run?: { answer: string | null };
    registration?: { state: string; reply: string; resource?: { name: string; version: number } };
  }>;
}

/**
 * Step 1: the person describes the index in one sentence to the admin agent; the registry drafts
 * it against the real Elasticsearch and echoes it with the discovered types; one correction in
 * words; saved only on an explicit yes; then the question is answered through the tool that was
 * just synthesized from it.
 */
async function registerByConversation(n: Narrator, user: string): Promise<void> {
  const messages = [DESCRIPTION, CORRECTION, 'yes'];
  n.say(
    'Notice: the model only reads the sentence into the descriptor schema; discovery reads the real mapping; the yes is read by code, and a pasted password would be refused.',
  );
  n.command(['chat', '--as', 'tollgate-cli', '-m', ...messages]);
  const doc = await n.json<RegistrationChatDoc>([
    'chat',
    '--as',
    'tollgate-cli',
    '--no-memory',
    '-m',
    ...messages,
  ]);
  messages.forEach((message, i) => {
    const turn = doc.turns[i];
    n.line(`${n.style.bold('you:')} ${message}`);
    n.line(
      `${n.style.bold('tollgate-cli:')} ${turn?.registration?.reply ?? turn?.run?.answer ?? '(no answer)'}`,
    );
  });
  const saved = doc.turns[2]?.registration;
  if (saved?.state !== 'saved' || saved.resource === undefined)
    throw new DemoError(`the conversation did not save the resource: ${JSON.stringify(doc.turns)}`);
  n.ok(
    `${saved.resource.name} version ${saved.resource.version} exists now — nobody wrote a tool for it`,
  );
  const call = (await chat(n, user, '搜索 id 为 12345 的订单'))[0];
  if (call?.status !== 'ok')
    throw new DemoError(`the first lookup through the new tool failed: ${JSON.stringify(call)}`);
}

/**
 * Step 6: a conversation of several successful calls ends; memory proposes what it did as a
 * skill; only a person with the reviewer role confirms it (the agent never can); the next
 * session is offered it and uses it, each of its steps a governed, audited call.
 */
async function skillLadder(n: Narrator, user: string): Promise<void> {
  const messages = ['find order 12345', 'find order 10001'];
  n.say(
    'Notice: memory proposes from what succeeded; nothing is in effect until a person confirms it.',
  );
  n.command(['chat', '--as', 'support', '--user', user, '-m', ...messages]);
  const doc = await n.json<{ ended?: { outcome: string; skillCandidateId: string } }>([
    'chat',
    '--as',
    'support',
    '--user',
    user,
    '-m',
    ...messages,
  ]);
  const id = doc.ended?.skillCandidateId ?? '';
  if (id === '') {
    n.say('(memory proposed no new skill: this procedure was proposed in an earlier run already)');
    return;
  }
  n.ok(
    `the session ended ${doc.ended?.outcome}; memory proposed a skill for review (candidate ${id})`,
  );
  await n.tollgate(['memory', 'candidates', 'ls', '--for', 'support', '--user', user]);
  n.say('The operator at the keyboard holds the reviewer role (examples/orders/10-agents.yaml):');
  await n.tollgate(['memory', 'candidates', 'confirm', id, '--for', 'support', '--user', user]);
  await n.tollgate(['memory', 'skills', '--for', 'support', '--user', user]);
  n.say(
    'Next session: the approved skill is offered as one function of its inputs; the model fills in only those, and each step runs through policy, the executor and audit like any call:',
  );
  const calls = await chat(n, user, 'find orders 20001 and 20002');
  const used = calls.find((c) => c.tool.startsWith(SKILL_FUNCTION_PREFIX));
  if (used?.status !== 'ok' || (used.skillSteps ?? []).some((step) => step.status !== 'ok'))
    throw new DemoError(
      `the next session did not use the approved skill: ${JSON.stringify(calls)}`,
    );
  n.ok(
    `${used.tool} ran ${used.skillSteps?.length ?? 0} governed calls (${(used.skillSteps ?? []).map((s) => s.callId).join(', ')})`,
  );
}

/**
 * The MCP reference server (npm `@modelcontextprotocol/server-everything`) as a Resource of
 * kind `mcp`: run under bubblewrap with no network and an empty environment, two of its tools
 * selected and pinned at apply, offered to support and called like any tool. The descriptor
 * names this clone's paths, so the demo writes it to .tollgate/demo/everything.yaml.
 */
async function upstreamMcp(n: Narrator, user: string): Promise<void> {
  const file = join('.tollgate', 'demo', 'everything.yaml');
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, everythingResource());
  n.say(
    `The server lists about twenty tools, among them get-env (it prints the server's environment). The operator selects two; nothing else is ever offered (${file}):`,
  );
  const declared = (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => (/(command|sandbox):/.test(line) ? `${line.slice(0, 60)}…` : line));
  n.line(n.style.dim(declared.join('\n')));
  n.say(
    'Applying it connects once, pins each selected tool by a hash of its definition, and screens its description:',
  );
  await n.tollgate(['apply', '-f', file]);
  await n.tollgate(['tools', 'ls', '--as', 'support']);
  const args = [
    'call',
    'everything_get_sum',
    '--as',
    'support',
    '--user',
    user,
    '--args',
    '{"a":2,"b":3}',
    '--wait',
  ];
  n.command(args);
  const sum = await n.json<{
    callId: string;
    meta?: { traceId?: string };
    status: string;
    data?: { untrusted?: boolean; content?: Array<{ text?: string }> };
  }>(args);
  const text = sum.data?.content?.[0]?.text ?? '';
  if (sum.status !== 'ok' || sum.data?.untrusted !== true || !text.includes('5'))
    throw new DemoError(
      `everything_get_sum did not answer 5: ${JSON.stringify(sum).slice(0, 300)}`,
    );
  n.line(`${n.style.green('ok')} everything_get_sum: ${text}`);
  n.ok(
    "the answer comes back marked untrusted: text from someone else's server, never instructions",
  );
  await auditRecord(n, sum.callId, sum.meta?.traceId ?? '', 'call.completed');
  n.say('\nget-env was never selected, so no agent can reach it:');
  await n.tollgate(
    ['call', 'everything_get_env', '--as', 'support', '--user', user, '--args', '{}'],
    1,
  );
  n.say(
    'A rug pull (the server changing a pinned tool later) withdraws that tool from every agent at once; test/e2e/governed-upstream.int.test.ts shows it.',
  );
}

function everythingResource(): string {
  const requireFromMcp = createRequire(
    new URL('../packages/connectors/mcp/package.json', import.meta.url),
  );
  const server = dirname(
    realpathSync(requireFromMcp.resolve('@modelcontextprotocol/server-everything/package.json')),
  );
  const readPaths = [realpathSync(new URL('../node_modules/.pnpm', import.meta.url))];
  const node = realpathSync(process.execPath);
  if (!node.startsWith('/usr/')) readPaths.push(dirname(dirname(node)));
  return `# The MCP reference server as a governed resource; written by the demo (paths of this clone).
apiVersion: tollgate.dev/v1
kind: Resource
metadata:
  name: everything
  tenant: team-a
  environment: prod
  description: The MCP reference server, run in a sandbox with no network.
spec:
  type: mcp
  connection:
    command: { executable: ${JSON.stringify(node)}, args: [${JSON.stringify(join(server, 'dist', 'index.js'))}, stdio] }
  sandbox: { readPaths: ${JSON.stringify(readPaths)} }
  tools:
    echo: { class: read }
    get-sum: { class: read }
  schema:
    fields:
      echo.message: { type: argument, filterable: true }
      get_sum.a: { type: argument, filterable: true }
      get_sum.b: { type: argument, filterable: true }
  access: { allowedRoles: [support], readonly: true }
`;
}

async function chat(n: Narrator, user: string, message: string): Promise<CallDoc[]> {
  n.command(['chat', '--as', 'support', '--user', user, '-m', message]);
  const doc = await n.json<ChatDoc>(['chat', '--as', 'support', '--user', user, '-m', message]);
  const turn = doc.turns[0]!;
  const calls = turn.run.steps.flatMap((s) => s.toolCalls);
  n.line(`${n.style.bold('you:')} ${message}`);
  for (const call of calls) {
    n.line(renderToolCall(call, n.style));
    if (call.status === 'error' && call.result)
      n.line(n.style.dim(`     model reads: ${JSON.stringify(call.result).slice(0, 300)}`));
  }
  n.line(`${n.style.bold('support:')} ${(turn.run.answer ?? '(no answer)').slice(0, 240)}`);
  return calls;
}

function visibleFields(n: Narrator, call: CallDoc): void {
  const rows = call.result?.data ?? [];
  n.line(renderData(rows as never, n.style));
  const shown = new Set(rows.flatMap((row) => paths(row)));
  const absent = Object.entries(HIDDEN)
    .filter(([field]) => !shown.has(field))
    .map(([field, why]) => `${field} (${why})`);
  n.ok(`only fields support may see; not in the result: ${absent.join(', ')}; client_ip is hashed`);
}

async function deniedTool(n: Narrator): Promise<void> {
  n.say(
    "\nb) an agent sends a call to a tool it was never offered (order_ops's aggregate) — policy, not the tool list, decides:",
  );
  const token = async (agent: string) =>
    (await n.json<{ token: string }>(['token', 'issue', '--agent', agent])).token;
  const nats = `nats://127.0.0.1:${n.env.TOLLGATE_NATS_PORT ?? 4222}`;
  const ops = await TollgateClient.connect({
    natsUrl: n.env.TOLLGATE_NATS_URL ?? nats,
    token: await token('order_ops'),
  });
  const support = await TollgateClient.connect({
    natsUrl: n.env.TOLLGATE_NATS_URL ?? nats,
    token: await token('support'),
  });
  try {
    const aggregate = (await ops.listTools()).find((t) => t.name === 'es_orders_aggregate');
    if (aggregate === undefined)
      throw new DemoError('order_ops was not offered es_orders_aggregate');
    const outcome = await support.call(aggregate, {
      aggregation: { kind: 'terms', field: 'status' },
      filters: null,
    });
    if (outcome.status !== 'error' || outcome.error.code !== 'POLICY_DENIED') {
      throw new DemoError(`expected POLICY_DENIED, got ${outcome.status}`);
    }
    const plain: PlainOutcome = {
      callId: outcome.callId,
      status: 'error',
      error: outcome.error.toJSON(),
      ...(outcome.meta ? { meta: outcome.meta } : {}),
    };
    n.line(renderOutcome(plain, n.style));
    await auditRecord(n, outcome.callId, outcome.meta?.traceId ?? '', 'call.denied');
  } finally {
    await ops.close();
    await support.close();
  }
}

async function approvedWrite(n: Narrator): Promise<void> {
  n.say(
    '\nd) order_ops marks order 12346 as shipped; the policy requires a person to approve writes:',
  );
  const args = [
    'call',
    'es_orders_write',
    '--as',
    'order_ops',
    '--args',
    '{"id":"12346","document":{"status":"shipped"}}',
    '--idempotency-key',
    `demo-${Date.now()}`,
    '--wait',
  ];
  n.command(args);
  let stdout = '';
  const waiting = runCli(['--json', ...args], {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: () => true },
    env: n.env,
    cwd: process.cwd(),
  });
  n.say('(the call is parked and waits for a decision)');
  const pending = await n.until('the pending approval', async () => {
    const doc = await n.json<{
      approvals: Array<{ id: string; tool: string; arguments?: { id?: string } }>;
    }>(['approvals', 'ls']);
    return doc.approvals.find((a) => a.tool === 'es_orders_write' && a.arguments?.id === '12346');
  });
  await n.tollgate(['approvals', 'ls']);
  n.say('The approver on duty (an Agent with the approver role, acting for alice) approves it:');
  await n.tollgate([
    'approvals',
    'approve',
    pending.id,
    '--as',
    'duty-approver',
    '--user',
    'alice',
    '--reason',
    'customer confirmed the shipment',
  ]);
  const code = await waiting;
  const final = JSON.parse(stdout) as PlainOutcome;
  if (code !== 0 || final.status !== 'ok')
    throw new DemoError(`the approved write did not complete: ${stdout}`);
  n.line(renderOutcome(final, n.style));
  n.ok('the write ran after the approval, exactly once, with the arguments that were approved');
}

async function preferencesOf(n: Narrator, user: string) {
  const { token } = await n.json<{ token: string }>([
    'token',
    'issue',
    '--agent',
    'support',
    '--user',
    user,
  ]);
  return activePreferences({ address: serviceAddress('memory', n.env), token });
}

function paths(row: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(row).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? paths(value as Record<string, unknown>, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}
