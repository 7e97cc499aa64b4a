import { TollgateError, UpstreamError } from '@tollgate/core';
import type { AttemptSteps, ErrorCode } from '@tollgate/core';

/** Socket error codes of Node's network stack: the server could not be reached (or was lost). */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
]);

/** A driver failure, classified by the kind: what the agent is told and whether to retry. */
export interface SqlFailure {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  /** The server's error code (SQLSTATE or errno), for the cause; never values or secrets. */
  cause: string;
}

/**
 * The SQL steps of core's `withAttempts`: each attempt gets the time it may take; a driver
 * failure, classified by the kind, becomes an `UpstreamError` with the attempts made, while an
 * outcome the kind already decided (not found, refused) passes through unchanged.
 */
export function sqlAttempts<T>(
  resource: string,
  classify: (err: unknown, cancelled: boolean) => SqlFailure,
  send: (timeoutMs: number) => Promise<T>,
): AttemptSteps<T> {
  return {
    send: (attempt) => send(attempt.timeoutMs),
    fail(err, attempts, cancelled) {
      if (err instanceof TollgateError) return { error: err, retryable: false };
      const failure = classify(err, cancelled);
      const error = new UpstreamError(failure.code, failure.message, {
        attempts,
        cause: new Error(failure.cause),
      });
      return { error, retryable: failure.retryable };
    },
    expired: (attempts) =>
      new UpstreamError(
        'UPSTREAM_TIMEOUT',
        `The call's deadline passed before the database answered for ${resource}.`,
        { attempts },
      ),
  };
}
