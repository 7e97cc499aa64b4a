import { TollgateError } from '../errors/codes.js';
import type { ErrorCode, TollgateErrorOptions } from '../errors/codes.js';

export interface UpstreamErrorOptions extends TollgateErrorOptions {
  /** HTTP status of the last attempt, when the upstream answered at all. */
  upstreamStatus?: number;
  /** Attempts made, retries included. */
  attempts: number;
}

/**
 * A failure talking to a data system, with what the reply envelope reports about it. Its
 * message and `cause` are sanitised: no credentials, headers or upstream internals.
 */
export class UpstreamError extends TollgateError {
  readonly upstreamStatus: number | undefined;
  readonly attempts: number;

  constructor(code: ErrorCode, message: string, options: UpstreamErrorOptions) {
    super(code, message, options);
    this.name = 'UpstreamError';
    this.upstreamStatus = options.upstreamStatus;
    this.attempts = options.attempts;
  }
}

export function isUpstreamError(err: unknown): err is UpstreamError {
  return err instanceof UpstreamError;
}
