/**
 * Memory through every service: an agent asks the same kind of question three times for alice;
 * memory learns her usual fields (applied as the default from then on) and proposes a saved
 * query; alice confirms it with `tollgate memory`; the synthesizer then offers it as a narrower
 * tool, the executor runs it as the tool it narrows, and audit records which saved query a call
 * went through. Nobody else is offered it or can run it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/infra.js';
import { tollgate, tollgateJson, parseJson } from './support/cli.js';
import { ordersScenario } from './support/scenario.js';
import type { OrdersScenario } from './support/scenario.js';
import { bringDown, bringUp } from './support/stack.js';

interface CallDoc {
  callId: string;
  status: string;
  data?: Array<Record<string, unknown>>;
  meta?: { tool?: string; defaultFields?: string[] };
  error?: { code: string; category: string; details?: Array<{ path: string }> };
}
interface ToolDoc {
  name: string;
  operation: string;
  resource: string;
  callSubject: string;
  inputSchema: { properties?: Record<string, unknown>; required?: string[] };
  savedQuery?: { id: string; name: string; revision: number; baseTool: string };
}
interface CandidateDoc {
  id: string;
  kind: string;
  user?: string;
  summary: string;
  proposal: Record<string, unknown>;
  status?: string;
  createdId?: string;
}

let stack: { startedHere: boolean } | undefined;
let scenario: OrdersScenario;
let as: string[];
const ALICE = ['--as', 'support', '--user', 'alice'];
const BOB = ['--as', 'support', '--user', 'bob'];

beforeAll(async () => {
  stack = await bringUp();
  scenario = await ordersScenario({ seed: true });
  as = ['--tenant', scenario.tenant];
  const applied = await tollgate([...as, 'apply', '-f', scenario.dir], { timeoutMs: 120_000 });
  if (applied.code !== 0) throw new Error(`apply failed: ${applied.stderr}`);
}, 900_000);

afterAll(async () => {
  await scenario?.cleanup();
  await bringDown(stack);
}, 180_000);

function call(tool: string, args: unknown, who = ALICE): Promise<CallDoc> {
  return tollgate(['--json', ...as, 'call', tool, ...who, '--args', JSON.stringify(args)]).then(
    (run) => parseJson<CallDoc>(run.stdout),
  );
}

async function tools(who = ALICE): Promise<ToolDoc[]> {
  return (await tollgateJson<{ tools: ToolDoc[] }>([...as, 'tools', 'ls', ...who])).tools;
}

const byId = (id: string) => ({
  filters: [{ field: 'id', op: 'eq', value: id }],
  fields: ['amount', 'id', 'status'],
});

describe('e2e - memory', () => {
  it('e2e - repeated questions become a confirmed saved query and a default, for alice only', async () => {
    // Three lookups of the same shape (an id), asking for the same fields.
    for (const id of ['12345', '10001', '10002']) {
      const found = await call('es_orders_search', byId(id));
      expect(found.status).toBe('ok');
      expect(found.data).toHaveLength(1);
    }

    // Memory proposes a saved query with the id as its parameter, for alice to confirm.
    const candidate = await eventually(async () => {
      const doc = await tollgateJson<{ candidates: CandidateDoc[] }>([
        ...as,
        'memory',
        'candidates',
        'ls',
        '--for',
        'support',
        '--user',
        'alice',
      ]);
      return doc.candidates.find((c) => c.kind === 'CANDIDATE_KIND_SAVED_QUERY');
    }, 30_000);
    expect(candidate.user).toBe('alice');
    expect(JSON.stringify(candidate.proposal)).toContain('/filters/0/value');

    // Bob sees nothing of alice's memory, and cannot confirm for her.
    const bobs = await tollgateJson<{ candidates: CandidateDoc[] }>([
      ...as,
      'memory',
      'candidates',
      'ls',
      '--for',
      'support',
      '--user',
      'bob',
    ]);
    expect(bobs.candidates.map((c) => c.id)).not.toContain(candidate.id);
    const bobConfirms = await tollgate([
      ...as,
      'memory',
      'candidates',
      'confirm',
      candidate.id,
      '--for',
      'support',
      '--user',
      'bob',
    ]);
    expect(bobConfirms.code).toBe(1);
    expect(bobConfirms.stderr).toMatch(/^tollgate: NOT_FOUND: /);

    const confirmed = await tollgateJson<CandidateDoc>([
      ...as,
      'memory',
      'candidates',
      'confirm',
      candidate.id,
      '--for',
      'support',
      '--user',
      'alice',
      '--name',
      'order_by_id',
      '--description',
      'One order by its id.',
    ]);
    expect(confirmed.status).toBe('CANDIDATE_STATUS_CONFIRMED');
    expect(confirmed.createdId).toBeTruthy();

    // Offered to alice, right after the tool it narrows, asking for the id only.
    const offered = await eventually(
      async () => (await tools()).find((t) => t.name === 'sq_order_by_id'),
      15_000,
    );
    expect(offered.savedQuery).toMatchObject({
      id: confirmed.createdId,
      name: 'order_by_id',
      revision: 1,
      baseTool: 'es_orders_search',
    });
    expect(offered.inputSchema.required).toEqual(['id']);
    expect(Object.keys(offered.inputSchema.properties ?? {})).toEqual(['id']);
    expect(offered.callSubject).toMatch(/\.es_orders$/);
    const names = (await tools()).map((t) => t.name);
    expect(names.indexOf('sq_order_by_id')).toBe(names.indexOf('es_orders_search') + 1);

    // It runs as the base tool: the same rows as the equivalent full call.
    const viaSaved = await call('sq_order_by_id', { id: '12345' });
    const direct = await call('es_orders_search', byId('12345'));
    expect(viaSaved.status).toBe('ok');
    expect(viaSaved.data).toEqual(direct.data);
    expect(viaSaved.data?.[0]).toMatchObject({ id: '12345' });

    // Its parameters are checked by name.
    const wrong = await call('sq_order_by_id', { id: '12345', limit: 500 });
    expect(wrong.status).toBe('error');
    expect(wrong.error?.code).toBe('ARGUMENTS_INVALID');
    expect(wrong.error?.details?.map((d) => d.path)).toEqual(['limit']);

    // Bob is not offered it and cannot run it.
    expect((await tools(BOB)).map((t) => t.name)).not.toContain('sq_order_by_id');
    const bobRuns = await tollgate([
      ...as,
      'call',
      'sq_order_by_id',
      ...BOB,
      '--args',
      '{"id":"12345"}',
    ]);
    expect(bobRuns.code).toBe(1);
    expect(bobRuns.stderr).toMatch(/^tollgate: UNKNOWN_TOOL: /);

    // `tollgate memory saved-queries` shows it in effect.
    const saved = await tollgateJson<{ savedQueries: Array<{ name: string; tool: string }> }>([
      ...as,
      'memory',
      'saved-queries',
      '--for',
      'support',
      '--user',
      'alice',
    ]);
    expect(saved.savedQueries.map((q) => [q.name, q.tool])).toEqual([
      ['order_by_id', 'es_orders_search'],
    ]);
  }, 300_000);

  it("e2e - alice's usual fields are the default when she names none; bob's calls are untouched", async () => {
    const defaulted = await eventually(async () => {
      const found = await call('es_orders_search', {
        filters: [{ field: 'id', op: 'eq', value: '10003' }],
      });
      return found.meta?.defaultFields ? found : undefined;
    }, 30_000);
    expect(defaulted.meta?.defaultFields).toEqual(['amount', 'id', 'status']);
    expect(
      Object.keys(defaulted.data?.[0] ?? {})
        .filter((k) => k !== '_id')
        .sort(),
    ).toEqual(['amount', 'id', 'status']);
    // Named fields win over the default.
    const named = await call('es_orders_search', {
      filters: [{ field: 'id', op: 'eq', value: '10003' }],
      fields: ['currency'],
    });
    expect(named.meta?.defaultFields).toBeUndefined();
    expect(Object.keys(named.data?.[0] ?? {}).filter((k) => k !== '_id')).toEqual(['currency']);
    // Bob has no such preference: all his visible fields come back.
    const bobs = await call(
      'es_orders_search',
      { filters: [{ field: 'id', op: 'eq', value: '10003' }] },
      BOB,
    );
    expect(bobs.meta?.defaultFields).toBeUndefined();
    expect(Object.keys(bobs.data?.[0] ?? {}).length).toBeGreaterThan(3);
  }, 120_000);
});
