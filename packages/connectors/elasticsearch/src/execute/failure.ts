import { errors } from '@elastic/elasticsearch';
import { isTollgateError } from '@tollgate/core';
import type { ErrorCode } from '@tollgate/core';

/**
 * What went wrong with one upstream attempt, already sanitised: the message names the
 * resource and the kind of failure, never headers, credentials or Elasticsearch internals.
 */
export interface Failure {
  code: ErrorCode;
  message: string;
  /** Worth another attempt (reads only; the caller decides). */
  retryable: boolean;
  status?: number;
  /** Error class and status or errno, for a `cause` that carries nothing sensitive. */
  cause: string;
}

/** Where a failure happened: before anything could change upstream, or while writing. */
export type Phase = 'read' | 'write';

// Errors from a connection that was never established: the request did not reach anyone.
const NOT_DELIVERED = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)\b/;
const ERRNO = /\b(E[A-Z]{3,}|UND_ERR_[A-Z_]+)\b/;

/** Maps a client error to a stable code, deciding retryability by phase. */
export function classifyFailure(
  err: unknown,
  resource: string,
  phase: Phase,
  cancelled: boolean,
): Failure {
  if (isTollgateError(err))
    return { code: err.code, message: err.message, retryable: false, cause: err.code };
  const write = phase === 'write';
  const unknownOutcome = (what: string): Failure => ({
    code: 'WRITE_OUTCOME_UNKNOWN',
    message: `${what} while writing to ${resource}; the write may or may not have been applied. Check before repeating it.`,
    retryable: false,
    cause: what,
  });
  if (
    err instanceof errors.TimeoutError ||
    (err instanceof errors.RequestAbortedError && cancelled)
  ) {
    if (write) return unknownOutcome('Elasticsearch did not answer in time');
    return {
      code: 'UPSTREAM_TIMEOUT',
      message: `Elasticsearch did not answer in time for ${resource}.`,
      retryable: !cancelled,
      cause: err.name,
    };
  }
  if (err instanceof errors.RequestAbortedError) {
    return {
      code: 'UPSTREAM_BAD_RESPONSE',
      message: `Elasticsearch sent a response too large to accept for ${resource}.`,
      retryable: false,
      cause: err.name,
    };
  }
  if (err instanceof errors.ConnectionError || err instanceof errors.NoLivingConnectionsError) {
    const errno = ERRNO.exec(err.message)?.[1] ?? 'connection error';
    if (write && !NOT_DELIVERED.test(err.message))
      return unknownOutcome('The connection to Elasticsearch failed');
    return {
      code: 'UPSTREAM_UNAVAILABLE',
      message: `Elasticsearch is unreachable for ${resource} (${errno}).`,
      retryable: true,
      cause: `${err.name} ${errno}`,
    };
  }
  if (err instanceof errors.ResponseError) return classifyResponse(err, resource, write);
  if (err instanceof errors.ProductNotSupportedError) {
    return badResponse(resource, 'the endpoint did not identify itself as Elasticsearch', err.name);
  }
  if (err instanceof errors.DeserializationError) {
    return badResponse(resource, 'the response body was not valid JSON', err.name);
  }
  const name = err instanceof Error ? err.name : typeof err;
  return {
    code: 'INTERNAL',
    message: `Calling Elasticsearch for ${resource} failed unexpectedly.`,
    retryable: false,
    cause: name,
  };
}

function classifyResponse(err: errors.ResponseError, resource: string, write: boolean): Failure {
  const status = err.statusCode ?? 0;
  const type = errorType(err.body);
  const cause = `ResponseError ${status}${type === '' ? '' : ` ${type}`}`;
  const failure = (code: ErrorCode, message: string, retryable = false): Failure => ({
    code,
    message,
    retryable,
    status,
    cause,
  });
  if (status === 400) {
    return failure(
      'UPSTREAM_REJECTED',
      `Elasticsearch rejected the request for ${resource} (400${type === '' ? '' : ` ${type}`}).`,
    );
  }
  if (status === 401 || status === 403) {
    return failure(
      'CREDENTIAL_UNAVAILABLE',
      `Elasticsearch refused the configured credential for ${resource} (${status}).`,
    );
  }
  if (status === 404) {
    const message =
      type === 'index_not_found_exception'
        ? `The index behind ${resource} does not exist.`
        : `Elasticsearch found nothing at the requested path for ${resource}.`;
    return failure('NOT_FOUND', message);
  }
  if (status === 409) {
    return failure(
      'VERSION_CONFLICT',
      `The document in ${resource} changed concurrently; read it again before writing.`,
    );
  }
  if (status === 408 || status === 504 || status === 502) {
    if (write) {
      return failure(
        'WRITE_OUTCOME_UNKNOWN',
        `Elasticsearch answered ${status} while writing to ${resource}; the write may or may not have been applied. Check before repeating it.`,
      );
    }
    return failure(
      status === 408 ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE',
      `Elasticsearch answered ${status} for ${resource}.`,
      true,
    );
  }
  if (status === 429 || status === 503) {
    return failure(
      'UPSTREAM_UNAVAILABLE',
      `Elasticsearch is overloaded or unavailable for ${resource} (${status}).`,
      true,
    );
  }
  return failure(
    'UPSTREAM_BAD_RESPONSE',
    `Elasticsearch failed the request for ${resource} (${status}).`,
  );
}

function badResponse(resource: string, what: string, cause: string): Failure {
  return {
    code: 'UPSTREAM_BAD_RESPONSE',
    message: `Unexpected answer for ${resource}: ${what}.`,
    retryable: false,
    cause,
  };
}

/** The Elasticsearch error type (`index_not_found_exception`, …) when it is a plain identifier. */
function errorType(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const error = (body as { error?: unknown }).error;
  const type =
    typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;
  return typeof type === 'string' && /^[a-z_]{1,80}$/.test(type) ? type : '';
}
