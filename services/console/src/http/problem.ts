import { isRpcError, RpcStatus } from '@tollgate/contracts';
import type { RpcErrorDetail } from '@tollgate/contracts';

/** One offending place in a request: a path in the document and, for text, a line and column. */
export interface ProblemDetail extends RpcErrorDetail {
  line?: number;
  column?: number;
}

/**
 * A failure the page shows: HTTP status, a stable code (the services' own where they gave
 * one), a message safe to show and the offending paths.
 */
export class HttpProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ProblemDetail[];

  constructor(status: number, code: string, message: string, details: ProblemDetail[] = []) {
    super(message);
    this.name = 'HttpProblem';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  toJSON(): { error: { code: string; message: string; details: ProblemDetail[] } } {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

export function badRequest(message: string, details: ProblemDetail[] = []): HttpProblem {
  return new HttpProblem(400, 'INVALID_ARGUMENT', message, details);
}

export function forbidden(message: string): HttpProblem {
  return new HttpProblem(403, 'FORBIDDEN', message);
}

const HTTP_OF_RPC: Partial<Record<RpcStatus, number>> = {
  [RpcStatus.INVALID_ARGUMENT]: 400,
  [RpcStatus.FAILED_PRECONDITION]: 409,
  [RpcStatus.OUT_OF_RANGE]: 400,
  [RpcStatus.NOT_FOUND]: 404,
  [RpcStatus.ALREADY_EXISTS]: 409,
  [RpcStatus.ABORTED]: 409,
  [RpcStatus.PERMISSION_DENIED]: 403,
  // The browser's session is fine: a service refused the console's own token (an issuer the
  // services do not trust, a clock far off). A 401 would send the person to sign in again.
  [RpcStatus.UNAUTHENTICATED]: 502,
  [RpcStatus.RESOURCE_EXHAUSTED]: 429,
  [RpcStatus.UNAVAILABLE]: 503,
  [RpcStatus.DEADLINE_EXCEEDED]: 504,
};

/**
 * What a service's failure becomes for the page: its status, code, message and details as the
 * service said them (services never put secrets or internals in them); anything that is not a
 * service error is a generic 500 (the caller logs it).
 */
export function problemOf(err: unknown): HttpProblem | undefined {
  if (err instanceof HttpProblem) return err;
  if (!isRpcError(err)) return undefined;
  const status = HTTP_OF_RPC[err.code] ?? 502;
  const code = err.tollgateCode ?? RpcStatus[err.code] ?? 'UNAVAILABLE';
  const message =
    err.code === RpcStatus.UNAVAILABLE && err.tollgateCode === undefined
      ? 'A Tollgate service is not reachable; try again shortly.'
      : err.message;
  return new HttpProblem(status, code, message, err.details);
}
