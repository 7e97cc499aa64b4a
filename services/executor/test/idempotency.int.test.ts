import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDERS_MAPPING, ordersResource } from '../../../test/fixtures/orders.js';
import { uniqueName } from '../../../test/support/infra.js';
import { ES_URL, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';

let h: Harness;
const index = uniqueName('tg_exec_writes').toLowerCase();

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  await h.es.indices.create({ index, mappings: ORDERS_MAPPING as never });
  const descriptor = ordersResource({ endpoint: ES_URL, index, readonly: false });
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  h.running = await h.startExecutor();
});
afterAll(async () => {
  await h?.es.indices.delete({ index, ignore_unavailable: true });
  await h?.stop();
});

async function stored(
  id: string,
): Promise<{ version: number; source: Record<string, unknown> } | undefined> {
  const doc = await h.es.get({ index, id }, { ignore: [404] });
  return doc.found
    ? { version: doc._version as number, source: doc._source as Record<string, unknown> }
    : undefined;
}

const write = (id: string, status = 'paid') => ({
  id,
  document: { status, amount: 42.5, currency: 'EUR' },
});

describe('idempotency - writes run once per key and principal', () => {
  it('idempotency - 100 concurrent writes with one key write one document, once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        h.call('es_orders_write', write('w-100'), {
          agent: 'ops_bot',
          idempotencyKey: 'key-100',
          waitMs: 60_000,
        }),
      ),
    );
    expect(answers.map((a) => a.error?.code ?? a.status)).toEqual(Array(100).fill('ok'));
    expect(new Set(answers.map((a) => JSON.stringify(a.data))).size).toBe(1);
    expect(answers[0]?.data).toEqual({ _id: 'w-100', result: 'created' });
    const doc = await stored('w-100');
    expect(doc?.version).toBe(1);
    expect(doc?.source).toEqual({
      status: 'paid',
      amount: 42.5,
      currency: 'EUR',
      tenant_id: 'team-a',
    });
    const { count } = await h.es.count({ index });
    expect(count).toBe(1);
    // Every one of the 100 calls is in the audit trail.
    for (const answer of answers) await h.eventOf(answer.callId, 'call.completed', 'OK');
  });

  it('idempotency - a retry after completion returns the stored result without writing again', async () => {
    const retry = await h.call('es_orders_write', write('w-100'), {
      agent: 'ops_bot',
      idempotencyKey: 'key-100',
    });
    expect(retry.status).toBe('ok');
    expect(retry.data).toEqual({ _id: 'w-100', result: 'created' });
    expect((await stored('w-100'))?.version).toBe(1);
  });

  it('idempotency - the same key with different arguments is IDEMPOTENCY_CONFLICT and writes nothing', async () => {
    const conflict = await h.call('es_orders_write', write('w-100', 'cancelled'), {
      agent: 'ops_bot',
      idempotencyKey: 'key-100',
    });
    expect(conflict.error).toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT',
      category: 'fix_arguments',
      message:
        'This idempotency key was already used for a different write; use a new key for new arguments.',
    });
    expect((await stored('w-100'))?.source.status).toBe('paid');
  });

  it('idempotency - keys are namespaced by principal', async () => {
    const asUser = async (user: string, id: string) =>
      h.call('es_orders_write', write(id), {
        token: await h.token('ops_bot', { user }),
        idempotencyKey: 'shared-key',
      });
    const first = await asUser('u-1', 'w-u1');
    const second = await asUser('u-2', 'w-u2');
    expect([first.status, second.status]).toEqual(['ok', 'ok']);
    expect((await stored('w-u1'))?.version).toBe(1);
    expect((await stored('w-u2'))?.version).toBe(1);
  });

  it('idempotency - a write without a key is refused, saying how to send one, before anything is written', async () => {
    const answer = await h.call('es_orders_write', write('w-nokey'), { agent: 'ops_bot' });
    expect(answer.error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REQUIRED',
      category: 'fix_arguments',
    });
    expect(answer.error?.message).toContain('idempotencyKey');
    expect(answer.error?.details[0]).toMatchObject({ path: 'idempotency_key', found: 'none' });
    expect(await stored('w-nokey')).toBeUndefined();
  });

  it('idempotency - a write that needs approval and has no key is refused, not parked for a person', async () => {
    const answer = await h.call('es_orders_write', write('w-nokey-clerk'), { agent: 'clerk_bot' });
    expect(answer.status).toBe('error');
    expect(answer.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REQUIRED' });
    expect(answer.approvalId).toBeUndefined();
    expect(await stored('w-nokey-clerk')).toBeUndefined();
  });

  it('idempotency - reads ignore idempotency keys', async () => {
    const args = { filters: [{ field: 'id', op: 'eq', value: 'w-100' }] };
    const first = await h.call('es_orders_search', args, {
      agent: 'ops_bot',
      idempotencyKey: 'read-key',
    });
    const other = await h.call(
      'es_orders_search',
      { ...args, limit: 1 },
      { agent: 'ops_bot', idempotencyKey: 'read-key' },
    );
    expect([first.status, other.status]).toEqual(['ok', 'ok']);
    const all: string[] = [];
    for await (const key of await h.running!.buckets.idempotency.keys()) all.push(key);
    expect(all).toHaveLength(3); // key-100 and shared-key for two users; nothing for reads
  });
});
