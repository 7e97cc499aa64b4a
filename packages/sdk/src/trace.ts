import { randomBytes } from 'node:crypto';
import { SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/transport-node';

const tracer = () => trace.getTracer('tollgate.sdk');

/**
 * Writes the active trace context into NATS headers. Without an OpenTelemetry SDK in the
 * process nothing is propagated, so a fresh sampled `traceparent` starts a trace the services
 * continue — every request carries one (docs/services.md).
 */
export function injectTraceparent(hdrs: MsgHdrs): void {
  propagation.inject(context.active(), hdrs, {
    set: (carrier, key, value) => carrier.set(key, value),
  });
  if (!hdrs.has('traceparent')) hdrs.set('traceparent', freshTraceparent());
}

export function freshTraceparent(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}

/** Runs `fn` in a client span (a no-op span when no OpenTelemetry SDK is registered). */
export async function inClientSpan<T>(
  name: string,
  attributes: Record<string, string>,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
      throw err;
    } finally {
      span.end();
    }
  });
}
