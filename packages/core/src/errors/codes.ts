/**
 * Stable error codes and the category that tells an agent what to do next. The proto
 * `ErrorCode`/`ErrorCategory` enums mirror these names one to one.
 */
export const ErrorCategory = {
  retryable: 'retryable',
  fix_arguments: 'fix_arguments',
  denied: 'denied',
  needs_human: 'needs_human',
  internal: 'internal',
} as const;
export type ErrorCategory = (typeof ErrorCategory)[keyof typeof ErrorCategory];

export const ErrorCodes = {
  INVALID_ARGUMENT: 'fix_arguments',
  ARGUMENTS_INVALID: 'fix_arguments',
  UNKNOWN_TOOL: 'fix_arguments',
  NOT_FOUND: 'fix_arguments',
  ALREADY_EXISTS: 'fix_arguments',
  VERSION_CONFLICT: 'fix_arguments',
  IDEMPOTENCY_CONFLICT: 'fix_arguments',
  /**
   * A write sent without the caller's idempotency key (and no business idempotency rule of the
   * resource builds one): call again with a key (the SDK's `idempotencyKey` call option, the
   * `idempotency_key` of a CallRequest), and reuse it when retrying that write.
   */
  IDEMPOTENCY_KEY_REQUIRED: 'fix_arguments',
  DESCRIPTOR_INVALID: 'fix_arguments',
  /**
   * A well-formed request that cannot apply to the current state (a draft or approval already
   * decided or expired, a rollback to a deletion): the same request will not succeed later.
   */
  FAILED_PRECONDITION: 'fix_arguments',
  UNAUTHENTICATED: 'denied',
  POLICY_DENIED: 'denied',
  POLICY_UNAVAILABLE: 'denied',
  TENANT_MISMATCH: 'denied',
  APPROVAL_REQUIRED: 'needs_human',
  APPROVAL_REJECTED: 'needs_human',
  APPROVAL_EXPIRED: 'needs_human',
  WRITE_OUTCOME_UNKNOWN: 'needs_human',
  RATE_LIMITED: 'retryable',
  /**
   * Tollgate's own service for the request is missing: no executor serves the call's subject,
   * or the executor never answered within the call's budget (it stopped mid-call). The
   * upstream is not at fault; a write retried with the same idempotency key runs at most once.
   */
  SERVICE_UNAVAILABLE: 'retryable',
  UPSTREAM_UNAVAILABLE: 'retryable',
  UPSTREAM_TIMEOUT: 'retryable',
  UPSTREAM_REJECTED: 'fix_arguments',
  /**
   * The upstream understood the request and refused it on its own business grounds (a conflict
   * with the current state, a rule it enforces: HTTP 409/422). The arguments are well-formed, a
   * retry will not change the answer; a person must decide. The message carries the upstream's
   * reason, shaped (one line, capped) and screened for secrets and instructions.
   */
  UPSTREAM_BUSINESS_REJECTION: 'needs_human',
  UPSTREAM_BAD_RESPONSE: 'internal',
  CREDENTIAL_UNAVAILABLE: 'internal',
  INTERNAL: 'internal',
} as const satisfies Record<string, ErrorCategory>;
export type ErrorCode = keyof typeof ErrorCodes;

/** One offending path in a request, and what would have been accepted there. */
export interface ErrorDetail {
  path: string;
  message: string;
  expected?: string;
  found?: string;
}

export interface TollgateErrorOptions extends ErrorOptions {
  details?: ErrorDetail[];
}

/** An expected failure with a stable code; safe to show to an agent (never carries secrets). */
export class TollgateError extends Error {
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  readonly details: ErrorDetail[];

  constructor(code: ErrorCode, message: string, options: TollgateErrorOptions = {}) {
    super(message, options);
    this.name = 'TollgateError';
    this.code = code;
    this.category = ErrorCodes[code];
    this.details = options.details ?? [];
  }
}

export function isTollgateError(err: unknown): err is TollgateError {
  return err instanceof TollgateError;
}

export function categoryOf(code: ErrorCode): ErrorCategory {
  return ErrorCodes[code];
}
