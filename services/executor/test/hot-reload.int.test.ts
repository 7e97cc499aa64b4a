import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersResource, seedOrders } from '../../../test/fixtures/orders.js';
import { eventually } from '../../../test/support/infra.js';
import { ES_URL, ORDERS_INDEX, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';

let h: Harness;
const base = { endpoint: ES_URL, index: ORDERS_INDEX };

beforeAll(async () => {
  h = await startHarness({ noExecutor: true });
  await seedOrders(h.es, ORDERS_INDEX);
  const descriptor = ordersResource(base);
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  h.running = await h.startExecutor();
});
afterAll(async () => {
  await h?.stop();
});

const byCountry = { filters: [{ field: 'shipping.country', op: 'eq', value: 'DE' }], limit: 1 };

describe('hot reload - descriptors and policies apply to the next call without a restart', () => {
  it('hot reload - a field removed from the descriptor is rejected by the next call within a second', async () => {
    expect((await h.call('es_orders_search', byCountry)).status).toBe('ok');
    const narrowed = ordersResource({ ...base, without: ['shipping.country'] });
    await h.publishResource(narrowed, 2);
    const rejected = await eventually(async () => {
      const answer = await h.call('es_orders_search', byCountry);
      return answer.status === 'error' ? answer : undefined;
    }, 1_000);
    expect(rejected.error).toMatchObject({ code: 'ARGUMENTS_INVALID', category: 'fix_arguments' });
    expect(rejected.error?.details[0]).toMatchObject({ path: 'filters[0].field' });
    expect(rejected.error?.details[0]?.expected).not.toContain('shipping.country');
    expect(rejected.meta?.resourceVersion).toBe(2);
    // Fields that remain keep working against the new version.
    const other = await h.call('es_orders_search', {
      filters: [{ field: 'id', op: 'eq', value: '12345' }],
    });
    expect(other.status).toBe('ok');
    expect(other.meta?.resourceVersion).toBe(2);
    expect(JSON.stringify(other.data)).not.toContain('country');
  });

  it('hot reload - a new policy bundle applies to the next call (a rate limit appears)', async () => {
    const descriptor = ordersResource(base);
    await h.publishResource(descriptor, 3);
    await h.publishBundle([{ descriptor, version: 3 }], 2, {
      searchRateLimit: { requests: 2, perSeconds: 3_600 },
    });
    const limited = await eventually(async () => {
      const answer = await h.call('es_orders_search', byCountry);
      return answer.error?.code === 'RATE_LIMITED' ? answer : undefined;
    }, 5_000);
    expect(limited.error).toMatchObject({ category: 'retryable' });
    expect(limited.error?.message).toMatch(
      /^Rate limit reached: at most 2 calls per 3600 s for this tool; retry in \d+ s\.$/,
    );
    expect(limited.error?.details[0]).toMatchObject({
      path: 'retry_after_ms',
      expected: 'at most 2 calls per 3600 s',
    });
    expect(Number(limited.error?.details[0]?.found)).toBeGreaterThan(0);
    // Only support_bot's searches are limited.
    expect((await h.call('es_orders_get', { id: '12345' })).status).toBe('ok');
    expect((await h.call('es_orders_search', byCountry, { agent: 'ops_bot' })).status).toBe('ok');
  });

  it('hot reload - a removed policy bundle denies every call of the tenant (fail closed)', async () => {
    await h.bundlesKv.delete('team-a');
    const denied = await eventually(async () => {
      const answer = await h.call('es_orders_get', { id: '12345' });
      return answer.status === 'error' ? answer : undefined;
    }, 5_000);
    expect(denied.error).toMatchObject({
      code: 'POLICY_UNAVAILABLE',
      category: 'denied',
      message:
        'Denied: policy could not be evaluated (no policy is loaded for this tenant); nothing was run.',
    });
    await h.eventOf(denied.callId, 'call.denied');
  });
});
