import { RpcError, RpcStatus } from '@tollgate/contracts';
import { isTollgateError } from '@tollgate/core';
import type { ErrorCode } from '@tollgate/core';

const STATUS_BY_CODE: Partial<Record<ErrorCode, RpcStatus>> = {
  NOT_FOUND: RpcStatus.NOT_FOUND,
  ALREADY_EXISTS: RpcStatus.ALREADY_EXISTS,
  VERSION_CONFLICT: RpcStatus.ABORTED,
  FAILED_PRECONDITION: RpcStatus.FAILED_PRECONDITION,
  IDEMPOTENCY_CONFLICT: RpcStatus.ABORTED,
  UNAUTHENTICATED: RpcStatus.UNAUTHENTICATED,
  RATE_LIMITED: RpcStatus.RESOURCE_EXHAUSTED,
  UPSTREAM_TIMEOUT: RpcStatus.DEADLINE_EXCEEDED,
};

const STATUS_BY_CATEGORY = {
  fix_arguments: RpcStatus.INVALID_ARGUMENT,
  denied: RpcStatus.PERMISSION_DENIED,
  needs_human: RpcStatus.FAILED_PRECONDITION,
  retryable: RpcStatus.UNAVAILABLE,
  internal: RpcStatus.INTERNAL,
} as const;

/** Maps a `TollgateError` to the gRPC status and trailers a client rebuilds it from. */
export function tollgateErrorToRpc(err: unknown): RpcError | undefined {
  if (!isTollgateError(err)) return undefined;
  const code = STATUS_BY_CODE[err.code] ?? STATUS_BY_CATEGORY[err.category];
  return new RpcError(code, err.message, { tollgateCode: err.code, details: err.details });
}
