import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { incomingRequestAttributes, outgoingRequestAttributes } from './redaction.js';

/** A started (or deliberately idle) telemetry pipeline. */
export interface Telemetry {
  /** True when spans are recorded and exported somewhere. */
  readonly enabled: boolean;
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  service: string;
  /** Explicit processors (tests use an in-memory exporter). Overrides the OTEL_* exporters. */
  spanProcessors?: SpanProcessor[];
  env?: Record<string, string | undefined>;
}

/**
 * Starts OpenTelemetry. Exporters come from the standard `OTEL_*` variables and stay off
 * unless `OTEL_EXPORTER_OTLP_ENDPOINT` (or a traces/metrics exporter) is configured, so a
 * developer machine without a collector is not flooded with export errors.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  const env = options.env ?? process.env;
  const configured =
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT) ||
    Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ||
    (env.OTEL_TRACES_EXPORTER !== undefined && env.OTEL_TRACES_EXPORTER !== 'none');
  if (!configured && !options.spanProcessors) {
    return { enabled: false, shutdown: async () => {} };
  }
  if (!env.OTEL_METRICS_EXPORTER && !env.OTEL_EXPORTER_OTLP_ENDPOINT)
    process.env.OTEL_METRICS_EXPORTER = 'none';
  if (!env.OTEL_LOGS_EXPORTER) process.env.OTEL_LOGS_EXPORTER = 'none';
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? options.service,
    }),
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    instrumentations: [
      new GrpcInstrumentation(),
      // Paths and query strings carry arguments and codes: spans keep the origin and the names.
      new HttpInstrumentation({
        startOutgoingSpanHook: outgoingRequestAttributes,
        startIncomingSpanHook: incomingRequestAttributes,
      }),
      // The default statement serializer replaces every value with `?`; keep it so.
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
    ],
  });
  sdk.start();
  return { enabled: true, shutdown: () => sdk.shutdown() };
}
