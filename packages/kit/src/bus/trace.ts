import { context, propagation, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { MsgHdrs } from '@nats-io/transport-node';
import { exceptionAttributes } from '../telemetry/redaction.js';

const tracer = () => trace.getTracer('tollgate.bus');

/** Writes the current trace context (W3C `traceparent`) into NATS headers. */
export function injectTrace(
  hdrs: MsgHdrs = natsHeaders(),
  ctx: Context = context.active(),
): MsgHdrs {
  propagation.inject(ctx, hdrs, {
    set: (carrier, key, value) => carrier.set(key, value),
  });
  return hdrs;
}

/** Reads a trace context from NATS headers (or returns the root context). */
export function extractTrace(hdrs: MsgHdrs | undefined): Context {
  if (!hdrs) return context.active();
  return propagation.extract(context.active(), hdrs, {
    get: (carrier, key) => carrier.get(key) || undefined,
    keys: (carrier) => carrier.keys(),
  });
}

/** Runs `fn` in a span of its own, recording failures (name and code, never the message). */
export async function inSpan<T>(
  name: string,
  fn: (span: Span) => Promise<T>,
  options: {
    kind?: SpanKind;
    parent?: Context;
    attributes?: Record<string, string | number | boolean>;
  } = {},
): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.attributes ? { attributes: options.attributes } : {}),
    },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        span.addEvent('exception', exceptionAttributes(err));
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

export function currentTraceId(): string {
  return trace.getActiveSpan()?.spanContext().traceId ?? '';
}

export { SpanKind };
