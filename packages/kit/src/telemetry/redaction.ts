import type { Attributes } from '@opentelemetry/api';
import type { IncomingMessage, RequestOptions } from 'node:http';
import {
  ATTR_EXCEPTION_MESSAGE,
  ATTR_EXCEPTION_STACKTRACE,
  ATTR_EXCEPTION_TYPE,
  ATTR_URL_FULL,
  ATTR_URL_QUERY,
} from '@opentelemetry/semantic-conventions';

/**
 * What a span may say about a request or a failure. A path, a query string or an error
 * message can carry a caller's argument (a document id, a filter value) or a secret (an OAuth
 * code), and trace backends are read by more people than the audit trail: spans keep the
 * shape (origin, method, parameter names, error name and code) and never the values.
 */
export const REDACTED = 'REDACTED';

/**
 * Attributes that override the HTTP instrumentation's for an outgoing request: the full URL
 * shrinks to its origin, since an upstream's path and query are built from the call's arguments.
 */
export function outgoingRequestAttributes(request: RequestOptions): Attributes {
  const protocol = request.protocol ?? 'http:';
  const host = request.hostname ?? request.host ?? 'localhost';
  const port = request.port === undefined || request.port === null ? '' : `:${request.port}`;
  return { [ATTR_URL_FULL]: `${protocol}//${host}${port}` };
}

/** For an incoming request: the query keeps its parameter names, every value is replaced. */
export function incomingRequestAttributes(request: IncomingMessage): Attributes {
  const url = request.url ?? '';
  const at = url.indexOf('?');
  if (at < 0) return {};
  return { [ATTR_URL_QUERY]: redactQuery(url.slice(at + 1)) };
}

/** `a=1&b=2` → `a=REDACTED&b=REDACTED` (names kept so an operator sees which were sent). */
export function redactQuery(query: string): string {
  const names = [...new URLSearchParams(query).keys()];
  return names.map((name) => `${encodeURIComponent(name)}=${REDACTED}`).join('&');
}

/**
 * The exception event a span records for a failure: its name and stable code (when it has
 * one) and where it was thrown, never its message, which may quote an argument or an upstream's
 * answer.
 */
export function exceptionAttributes(err: unknown): Attributes {
  const error = err instanceof Error ? err : undefined;
  const name = error?.name ?? typeof err;
  const code = (err as { code?: unknown } | null)?.code;
  const frames = error?.stack?.split('\n').filter((line) => /^\s+at /.test(line)) ?? [];
  return {
    [ATTR_EXCEPTION_TYPE]: name,
    [ATTR_EXCEPTION_MESSAGE]: typeof code === 'string' ? code : name,
    ...(frames.length > 0 ? { [ATTR_EXCEPTION_STACKTRACE]: frames.join('\n') } : {}),
  };
}
