import { ErrorCategory, ErrorCodes } from '@tollgate/core';
import type { ErrorCode, ErrorDetail } from '@tollgate/core';

/** What an error says, as it travels (reply header, CallResult, completion event). */
export interface ToolCallErrorInit {
  code: ErrorCode;
  category?: ErrorCategory;
  message: string;
  details?: ErrorDetail[];
}

/**
 * An error Tollgate reported to the agent (or the SDK raised on its behalf): a stable `code`,
 * the `category` that says what to do about it, a message safe to show to a model and, for
 * argument problems, the offending paths. One subclass per category, so callers can branch
 * with `instanceof` or the `is…` predicates.
 */
export class ToolCallError extends Error {
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  readonly details: ErrorDetail[];

  constructor(init: ToolCallErrorInit, options?: ErrorOptions) {
    super(init.message, options);
    this.name = 'ToolCallError';
    this.code = init.code;
    this.category = init.category ?? ErrorCodes[init.code];
    this.details = init.details ?? [];
  }

  /** The plain form, e.g. to hand to a model or print as JSON. */
  toJSON(): { code: ErrorCode; category: ErrorCategory; message: string; details: ErrorDetail[] } {
    return {
      code: this.code,
      category: this.category,
      message: this.message,
      details: this.details,
    };
  }
}

/** Correct the arguments named in `details` and call again. */
export class FixArgumentsError extends ToolCallError {
  override readonly name = 'FixArgumentsError';
}

/** Try again later: the service, network or upstream was unavailable or too slow. */
export class RetryableError extends ToolCallError {
  override readonly name = 'RetryableError';
}

/** Policy or authentication said no; retrying will not help. */
export class DeniedError extends ToolCallError {
  override readonly name = 'DeniedError';
}

/** A person must act: approval pending or rejected, a business rejection, an unknown write. */
export class NeedsHumanError extends ToolCallError {
  override readonly name = 'NeedsHumanError';
}

/** Tollgate's own fault (or a reply the SDK could not understand). */
export class InternalError extends ToolCallError {
  override readonly name = 'InternalError';
}

const byCategory = {
  fix_arguments: FixArgumentsError,
  retryable: RetryableError,
  denied: DeniedError,
  needs_human: NeedsHumanError,
  internal: InternalError,
} as const satisfies Record<ErrorCategory, typeof ToolCallError>;

/** The error of the right class for `init.category` (or the code's own category). */
export function toolCallError(init: ToolCallErrorInit, options?: ErrorOptions): ToolCallError {
  const category = init.category ?? ErrorCodes[init.code];
  return new byCategory[category]({ ...init, category }, options);
}

export function isToolCallError(err: unknown): err is ToolCallError {
  return err instanceof ToolCallError;
}

export function isFixArguments(err: unknown): err is ToolCallError {
  return isToolCallError(err) && err.category === ErrorCategory.fix_arguments;
}

export function isRetryable(err: unknown): err is ToolCallError {
  return isToolCallError(err) && err.category === ErrorCategory.retryable;
}

export function isDenied(err: unknown): err is ToolCallError {
  return isToolCallError(err) && err.category === ErrorCategory.denied;
}

export function isNeedsHuman(err: unknown): err is ToolCallError {
  return isToolCallError(err) && err.category === ErrorCategory.needs_human;
}

export function isInternal(err: unknown): err is ToolCallError {
  return isToolCallError(err) && err.category === ErrorCategory.internal;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ErrorCodes, value);
}

export function isErrorCategory(value: unknown): value is ErrorCategory {
  return typeof value === 'string' && Object.hasOwn(ErrorCategory, value);
}
