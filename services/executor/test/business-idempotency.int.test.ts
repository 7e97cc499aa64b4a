import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDERS_MAPPING, ordersResource } from '../../../test/fixtures/orders.js';
import { uniqueName } from '../../../test/support/infra.js';
import { ES_URL, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';

/**
 * Business idempotency on real Elasticsearch: the resource says which arguments make two
 * writes the same business request (`access.idempotency`), so callers with their own keys,
 * with no key, or acting for other people run it once — where per-principal keys ran it
 * once per caller.
 */
let h: Harness;
const index = uniqueName('tg_exec_biz').toLowerCase();

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  await h.es.indices.create({ index, mappings: ORDERS_MAPPING as never });
  const descriptor = ordersResource({ endpoint: ES_URL, index, readonly: false });
  descriptor.spec.access.idempotency = { write: { key: ['/id', '/document/status'] } };
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  h.running = await h.startExecutor();
});
afterAll(async () => {
  await h?.es.indices.delete({ index, ignore_unavailable: true });
  await h?.stop();
});

const write = (id: string, amount = 42.5) => ({
  id,
  document: { status: 'paid', amount, currency: 'EUR' },
});

async function version(id: string): Promise<number | undefined> {
  const doc = await h.es.get({ index, id }, { ignore: [404] });
  return doc.found ? (doc._version as number) : undefined;
}

describe('business idempotency - the same business request runs once, whoever asks', () => {
  it('business idempotency - two sessions with their own keys, one without, and another user: one write', async () => {
    const callers = [
      { agent: 'ops_bot', idempotencyKey: 'session-a-1', sessionId: 'a' },
      { agent: 'ops_bot', idempotencyKey: 'session-b-7', sessionId: 'b' },
      { agent: 'ops_bot', sessionId: 'c' },
      {
        agent: 'ops_bot',
        token: await h.token('ops_bot', { user: 'bob@example.com' }),
        sessionId: 'd',
      },
    ];
    const answers = await Promise.all(
      callers.map((o) => h.call('es_orders_write', write('b-1'), o)),
    );
    expect(answers.map((a) => a.error?.code ?? a.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(answers.map((a) => a.data)).toEqual(Array(4).fill({ _id: 'b-1', result: 'created' }));
    expect(await version('b-1')).toBe(1);
  });

  it('business idempotency - the same business key with other arguments is a conflict and writes nothing', async () => {
    const conflict = await h.call('es_orders_write', write('b-1', 99), {
      agent: 'ops_bot',
      idempotencyKey: 'another-session',
    });
    expect(conflict.error).toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT',
      category: 'fix_arguments',
      message:
        'The same business request (by the fields this resource says identify it) was already made today with other arguments; a person must decide which one stands.',
    });
    expect(await version('b-1')).toBe(1);
    const doc = await h.es.get({ index, id: 'b-1' });
    expect((doc._source as { amount: number }).amount).toBe(42.5);
  });

  it('business idempotency - another business key is another write', async () => {
    const other = await h.call('es_orders_write', write('b-2'), { agent: 'ops_bot' });
    expect(other.status).toBe('ok');
    expect(await version('b-2')).toBe(1);
  });
});
