import { describe, expect, it } from 'vitest';
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpHttpExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpGrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { eventually, infra, uniqueName } from '../support/infra.js';

/** The part of Jaeger's `GET /api/traces/<id>` answer this test reads. */
interface JaegerTrace {
  traceID: string;
  spans: {
    spanID: string;
    operationName: string;
    references: { refType: string; traceID: string; spanID: string }[];
    tags: { key: string; type: string; value: unknown }[];
    processID: string;
  }[];
  processes: Record<string, { serviceName: string }>;
}

async function fetchTrace(traceId: string): Promise<JaegerTrace | undefined> {
  const res = await fetch(`${infra.jaeger.queryUrl}/api/traces/${traceId}`);
  if (res.status === 404) return undefined;
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: JaegerTrace[] };
  const trace = body.data[0];
  return trace && trace.spans.length >= 2 ? trace : undefined;
}

/** Sends a parent and a child span through `exporter`; returns the trace id and the names. */
async function sendTrace(exporter: SpanExporter, service: string) {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('tg-smoke');
  // The parent is passed explicitly: no context manager is registered in this test.
  const parent = tracer.startSpan('agent call', { kind: SpanKind.CLIENT });
  const child = tracer.startSpan('executor stage', {}, trace.setSpan(ROOT_CONTEXT, parent));
  child.setAttribute('tollgate.stage', 'compile');
  child.end();
  parent.end();
  const traceId = parent.spanContext().traceId;
  await provider.forceFlush();
  await provider.shutdown();
  return traceId;
}

describe('smoke - Jaeger', () => {
  for (const [protocol, exporter] of [
    ['OTLP/HTTP', () => new OtlpHttpExporter({ url: `${infra.jaeger.otlpHttpUrl}/v1/traces` })],
    ['OTLP/gRPC', () => new OtlpGrpcExporter({ url: infra.jaeger.otlpGrpcUrl })],
  ] as const) {
    it(`jaeger - a trace sent over ${protocol} is read back from the query API`, async () => {
      const service = uniqueName('tg-smoke');
      const traceId = await sendTrace(exporter(), service);
      const trace = await eventually(() => fetchTrace(traceId), 10_000, 200);
      expect(trace.traceID).toBe(traceId);
      const byName = new Map(trace.spans.map((s) => [s.operationName, s]));
      const parent = byName.get('agent call');
      const child = byName.get('executor stage');
      expect(parent && child).toBeTruthy();
      expect(child!.references).toContainEqual({
        refType: 'CHILD_OF',
        traceID: traceId,
        spanID: parent!.spanID,
      });
      expect(child!.tags).toContainEqual({
        key: 'tollgate.stage',
        type: 'string',
        value: 'compile',
      });
      expect(trace.processes[child!.processID]?.serviceName).toBe(service);
      const services = (await (await fetch(`${infra.jaeger.queryUrl}/api/services`)).json()) as {
        data: string[];
      };
      expect(services.data).toContain(service);
    });
  }

  it('jaeger - an unknown trace id is a 404, not an empty success', async () => {
    const res = await fetch(`${infra.jaeger.queryUrl}/api/traces/${'0'.repeat(31)}1`);
    expect(res.status).toBe(404);
  });
});
