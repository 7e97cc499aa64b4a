import { trace } from '@opentelemetry/api';
import { pino } from 'pino';
import type { Logger, DestinationStream } from 'pino';

/**
 * Paths pino censors in every log line. Credentials and tokens must never reach a log, so
 * anything that may carry one is listed here, at any depth pino supports.
 */
export const REDACTED_PATHS = [
  'password',
  'token',
  'secret',
  'apiKey',
  'authorization',
  'credential',
  'credentials',
  '*.password',
  '*.token',
  '*.secret',
  '*.apiKey',
  '*.authorization',
  '*.credential',
  '*.credentials',
  'headers.authorization',
  'req.headers.authorization',
  'metadata.authorization',
  '*.*.password',
  '*.*.token',
  '*.*.authorization',
];

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Defaults to stdout. Tests pass a stream to read lines back. */
  destination?: DestinationStream;
}

/** A JSON logger whose every line carries `service`, `trace_id` and `span_id`. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      mixin() {
        const span = trace.getActiveSpan();
        if (!span) return { trace_id: null, span_id: null };
        const ctx = span.spanContext();
        return { trace_id: ctx.traceId, span_id: ctx.spanId };
      },
    },
    options.destination,
  );
}

export type { Logger };
