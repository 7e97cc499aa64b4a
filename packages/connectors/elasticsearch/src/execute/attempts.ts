import { UpstreamError } from '@tollgate/core';
import type { Attempt, AttemptSteps } from '@tollgate/core';

import { classifyFailure } from './failure.js';

/** Per-attempt transport options of the client: the timeout left and the caller's cancellation. */
export interface AttemptOptions {
  requestTimeout: number;
  signal?: AbortSignal;
}

/**
 * Wraps an error thrown while the mutating request of a write was in flight, so the failure is
 * classified as a possible partial write rather than a harmless read failure.
 */
export class MutationFailed extends Error {
  constructor(readonly failure: unknown) {
    super('mutation failed');
    this.name = 'MutationFailed';
  }
}

/** The client's transport options for one attempt of the shared loop. */
function transportOptions(attempt: Attempt): AttemptOptions {
  return {
    requestTimeout: attempt.timeoutMs,
    ...(attempt.signal === undefined ? {} : { signal: attempt.signal }),
  };
}

/**
 * The Elasticsearch steps of core's `withAttempts`: each attempt sends with the client's
 * transport options; its failure is classified by phase (a `MutationFailed` is a write in
 * flight) and becomes an `UpstreamError` with the attempts made.
 */
export function esAttempts<T>(
  resource: string,
  send: (options: AttemptOptions) => Promise<T>,
): AttemptSteps<T> {
  return {
    send: (attempt) => send(transportOptions(attempt)),
    fail(err, attempts, cancelled) {
      const mutation = err instanceof MutationFailed;
      const failure = classifyFailure(
        mutation ? err.failure : err,
        resource,
        mutation ? 'write' : 'read',
        cancelled,
      );
      const error = new UpstreamError(failure.code, failure.message, {
        attempts,
        ...(failure.status === undefined ? {} : { upstreamStatus: failure.status }),
        cause: new Error(failure.cause),
      });
      return { error, retryable: failure.retryable };
    },
    expired: (attempts) =>
      new UpstreamError(
        'UPSTREAM_TIMEOUT',
        `The call's deadline passed before Elasticsearch answered for ${resource}.`,
        { attempts },
      ),
  };
}
