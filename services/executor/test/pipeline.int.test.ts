import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { DecisionEffect } from '@tollgate/contracts/policy/v1';
import { startTelemetry } from '@tollgate/kit';
import type { Telemetry } from '@tollgate/kit';
import { ordersResource, seedOrders } from '../../../test/fixtures/orders.js';
import { ES_URL, ORDERS_INDEX, startHarness } from './support/harness.js';
import type { Harness } from './support/harness.js';

let h: Harness;
let telemetry: Telemetry;
const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });

beforeAll(async () => {
  telemetry = startTelemetry({ service: 'executor-test', spanProcessors: [processor] });
  h = await startHarness({ noExecutor: true });
  await seedOrders(h.es, ORDERS_INDEX);
  const descriptor = ordersResource({ endpoint: ES_URL, index: ORDERS_INDEX });
  await h.publishResource(descriptor, 1);
  await h.publishBundle([{ descriptor, version: 1 }], 1);
  h.running = await h.startExecutor();
});
afterAll(async () => {
  await h?.stop();
  await telemetry?.shutdown();
});

const byId = { filters: [{ field: 'id', op: 'eq', value: '12345' }] };

describe('pipeline - each stage decides what it owns', () => {
  it("pipeline - every stage runs in its own span of the caller's trace", async () => {
    exporter.reset();
    const answer = await h.call('es_orders_search', byId);
    expect(answer.status).toBe('ok');
    await processor.forceFlush();
    const spans = exporter
      .getFinishedSpans()
      .filter((s) => s.spanContext().traceId === answer.meta?.traceId);
    const names = spans.map((s) => s.name);
    for (const stage of [
      'authenticate',
      'resolve',
      'decide',
      'validate',
      'credential',
      'compile',
      'execute',
      'shape',
      'reply',
    ])
      expect(names).toContain(`executor.${stage}`);
    expect(names).toContain('executor.call');
    const call = spans.find((s) => s.name === 'executor.call');
    const execute = spans.find((s) => s.name === 'executor.execute');
    expect(execute?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId);
  });

  it('pipeline - a principal no policy allows is denied and the denial is audited as call.denied', async () => {
    const answer = await h.call('es_orders_search', byId, { agent: 'intern_bot' });
    expect(answer.status).toBe('error');
    expect(answer.error).toMatchObject({
      code: 'POLICY_DENIED',
      category: 'denied',
      message: 'Denied by policy: no grant allows es_orders.search for this agent.',
    });
    const event = await h.eventOf(answer.callId, 'call.denied');
    if (event.payload.case !== 'callDenied') throw new Error('not a denial');
    expect(event.payload.value.decision?.effect).toBe(DecisionEffect.DENY);
    expect(event.payload.value.principal?.agent).toBe('intern_bot');
    expect(event.payload.value.resource).toBe('es_orders');
    expect(
      h.events.some(
        (e) =>
          e.type === 'call.completed' &&
          e.payload.case === 'callCompleted' &&
          e.payload.value.callId === answer.callId,
      ),
    ).toBe(false);
  });

  it('pipeline - a call without a token is refused and audited without a principal', async () => {
    const answer = await h.call('es_orders_search', byId, { token: null });
    expect(answer.error).toMatchObject({
      code: 'UNAUTHENTICATED',
      category: 'denied',
      message: 'Not authenticated: no principal token was presented.',
    });
    const event = await h.eventOf(answer.callId, 'call.denied');
    expect(event.tenant).toBe('');
    if (event.payload.case !== 'callDenied') throw new Error('not a denial');
    expect(event.payload.value.principal).toBeUndefined();
  });

  it('pipeline - a write on a read-only resource is denied by the read-only guard', async () => {
    const answer = await h.call(
      'es_orders_write',
      { id: '1', document: { status: 'paid' } },
      { agent: 'ops_bot', idempotencyKey: 'k' },
    );
    expect(answer.error).toMatchObject({
      code: 'POLICY_DENIED',
      message: 'Denied by policy: resource is read-only.',
    });
  });

  it('pipeline - a tool name of another resource on this subject is UNKNOWN_TOOL', async () => {
    const answer = await h.call('es_customers_search', byId, { subjectResource: 'es_orders' });
    expect(answer.error).toMatchObject({ code: 'UNKNOWN_TOOL', category: 'fix_arguments' });
    expect(answer.error?.details).toEqual([
      {
        path: 'tool',
        message: 'not a tool of this resource',
        expected: 'es_orders_<operation>',
        found: 'es_customers_search',
      },
    ]);
    await h.eventOf(answer.callId, 'call.completed', 'ERROR');
  });

  it('pipeline - a stale tool version is UNKNOWN_TOOL so the agent lists tools again', async () => {
    const current = await h.call('es_orders_search', byId);
    const same = await h.call('es_orders_search', byId, {
      toolVersion: current.meta?.toolVersion as string,
    });
    expect(same.status).toBe('ok');
    const stale = await h.call('es_orders_search', byId, { toolVersion: '0'.repeat(64) });
    expect(stale.error).toMatchObject({ code: 'UNKNOWN_TOOL' });
    expect(stale.error?.details[0]).toMatchObject({
      path: 'tool_version',
      expected: current.meta?.toolVersion,
    });
  });

  it("pipeline - an unknown resource is NOT_FOUND in the same words as another tenant's", async () => {
    const missing = await h.call('es_missing_search', {});
    const foreign = await h.call('es_orders_search', byId, {
      token: await h.token('support_bot', { tenant: 'team-b' }),
    });
    expect(missing.error).toMatchObject({
      code: 'NOT_FOUND',
      message: 'No resource named "es_missing" is available to you; list tools to see what is.',
    });
    expect(foreign.error).toMatchObject({
      code: 'NOT_FOUND',
      message: 'No resource named "es_orders" is available to you; list tools to see what is.',
    });
  });

  it('pipeline - polling a call that was never parked is NOT_FOUND on the error header', async () => {
    const answer = await h.poll(crypto.randomUUID());
    expect(answer.status).toBe('rejected');
    expect(answer.error).toMatchObject({ code: 'NOT_FOUND', category: 'fix_arguments' });
  });
});
