import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create, toBinary } from '@bufbuild/protobuf';
import { CallRequestSchema } from '@tollgate/contracts/call/v1';
import { ordersResource, seedOrders } from '../../../test/fixtures/orders.js';
import { MAX_REPORTED_PROBLEMS } from '../src/pipeline/argument-shape.js';
import { ES_URL, ORDERS_INDEX, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  await seedOrders(h.es, ORDERS_INDEX);
  const descriptor = ordersResource({ endpoint: ES_URL, index: ORDERS_INDEX });
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  h.running = await h.startExecutor();
});
afterAll(async () => {
  await h?.stop();
});

const byId = { filters: [{ field: 'id', op: 'eq', value: '12345' }] };

describe('argument limits - validation is no CPU lever', () => {
  it('argument limits - 65,000 empty filters (260 KB) are refused in one problem while a valid call beside them is answered', async () => {
    const hostile = { filters: Array.from({ length: 65_000 }, () => ({})) };
    const size = toBinary(
      CallRequestSchema,
      create(CallRequestSchema, { callId: 'x', tool: 'es_orders_search', arguments: hostile }),
    ).length;
    expect(size).toBeGreaterThan(250_000);
    const [refused, valid] = await Promise.all([
      h.call('es_orders_search', hostile),
      h.call('es_orders_search', byId),
    ]);
    expect(refused.error).toMatchObject({ code: 'ARGUMENTS_INVALID', category: 'fix_arguments' });
    expect(refused.error?.details).toEqual([
      {
        path: 'filters',
        message: 'array too long',
        expected: 'at most 1000 items',
        found: '65000 items',
      },
    ]);
    expect(valid.status).toBe('ok');
    expect(valid.data).toMatchObject([{ id: '12345' }]);
    await h.eventOf(refused.callId, 'call.completed', 'ERROR');
  });

  it('argument limits - a call with more problems than are reported names the first ones and counts them all', async () => {
    const bad = {
      filters: Array.from({ length: 20 }, () => ({ field: 'no_such_field', op: 'nope' })),
      fields: 'all',
      limit: 'many',
    };
    const answer = await h.call('es_orders_search', bad);
    expect(answer.error?.code, answer.error?.message).toBe('ARGUMENTS_INVALID');
    expect(answer.error?.details).toHaveLength(MAX_REPORTED_PROBLEMS);
    expect(answer.error?.message, JSON.stringify(answer.error?.details)).toMatch(
      new RegExp(`: \\d+ problems \\(the first ${MAX_REPORTED_PROBLEMS} in details\\)`),
    );
  });
});
