import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { NatsConnection } from '@nats-io/transport-node';
import { SpanKind, trace } from '@opentelemetry/api';
import {
  EventPublisher,
  EventTypes,
  createLogger,
  extractTrace,
  inSpan,
  subjects,
  request,
  serve,
  startTelemetry,
  currentTraceId,
} from '@tollgate/kit';
import type { Telemetry } from '@tollgate/kit';
import { infra, uniqueName } from '../support/infra.js';
import { connectTestBus } from '../support/bus.js';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
let telemetry: Telemetry;
let nc: NatsConnection;

beforeAll(async () => {
  telemetry = startTelemetry({ service: 'smoke', spanProcessors: [processor] });
  nc = await connectTestBus({ url: infra.natsUrl, name: 'smoke-trace' });
});
afterAll(async () => {
  await nc?.drain();
  await telemetry?.shutdown();
});

describe('smoke - OpenTelemetry across NATS', () => {
  it('trace - one trace spans a NATS request and its reply handler (parent/child ids)', async () => {
    const subject = `smoke.${uniqueName('trace')}`;
    let handlerTraceId = '';
    const sub = serve(
      nc,
      subject,
      async (msg) => {
        handlerTraceId = currentTraceId();
        return { data: msg.data };
      },
      { logger: createLogger({ service: 'smoke', level: 'silent' }), spanName: 'executor handle' },
    );
    const rootTraceId = await inSpan('agent call', async () => {
      const reply = await request(nc, subject, new TextEncoder().encode('ping'), {
        timeoutMs: 2_000,
      });
      expect(new TextDecoder().decode(reply.data)).toBe('ping');
      return currentTraceId();
    });
    sub.unsubscribe();

    await processor.forceFlush();
    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.name === 'agent call');
    const client = spans.find((s) => s.name === `nats request ${subject}`);
    const server = spans.find((s) => s.name === 'executor handle');
    expect(root && client && server).toBeTruthy();
    expect(client!.spanContext().traceId).toBe(rootTraceId);
    expect(server!.spanContext().traceId).toBe(rootTraceId);
    expect(handlerTraceId).toBe(rootTraceId);
    expect(client!.parentSpanContext?.spanId).toBe(root!.spanContext().spanId);
    expect(server!.parentSpanContext?.spanId).toBe(client!.spanContext().spanId);
  });

  it('trace - an event publication is a producer span of the call, and its subscriber continues the trace', async () => {
    const tenant = uniqueName('trace-tenant').replaceAll('_', '-');
    const subject = subjects.event(EventTypes.callCompleted, tenant);
    const secret = 'payload-secret-4711';
    const received = new Promise<string>((resolve) => {
      const sub = nc.subscribe(subject, {
        max: 1,
        callback: (_err, msg) => {
          resolve(trace.getSpanContext(extractTrace(msg.headers))?.traceId ?? '');
          sub.unsubscribe();
        },
      });
    });
    await nc.flush();
    const rootTraceId = await inSpan('agent call', async () => {
      await new EventPublisher(nc).publish(
        EventTypes.callCompleted,
        crypto.randomUUID(),
        new TextEncoder().encode(secret),
        tenant,
      );
      return currentTraceId();
    });
    expect(await received).toBe(rootTraceId);
    await processor.forceFlush();
    const spans = exporter.getFinishedSpans();
    const root = spans.find(
      (s) => s.name === 'agent call' && s.spanContext().traceId === rootTraceId,
    );
    const publish = spans.find(
      (s) =>
        s.name === `publish ${EventTypes.callCompleted}` && s.spanContext().traceId === rootTraceId,
    );
    expect(publish?.kind).toBe(SpanKind.PRODUCER);
    expect(publish?.parentSpanContext?.spanId).toBe(root?.spanContext().spanId);
    expect(publish?.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': subject,
    });
    expect(typeof publish?.attributes['messaging.nats.stream_sequence']).toBe('number');
    expect(JSON.stringify(publish?.attributes)).not.toContain(secret);
  });
});
