/**
 * Rebuilds typed errors from what crosses the wire: the `tollgate-error` reply header, the
 * `error` of a CallResult or completion event, NATS transport failures and gRPC failures.
 * Anything malformed becomes an InternalError that says what was wrong — never a crash.
 */
import { errors as natsErrors } from '@nats-io/transport-node';
import {
  ErrorCategory as ProtoCategory,
  ErrorCode as ProtoCode,
} from '@tollgate/contracts/common/v1';
import type {
  Error as ProtoError,
  ErrorDetail as ProtoDetail,
} from '@tollgate/contracts/common/v1';
import { RpcStatus, isRpcError } from '@tollgate/contracts';
import { isCallSubject } from '@tollgate/contracts/bus';
import type { ErrorCategory, ErrorCode, ErrorDetail } from '@tollgate/core';
import { isErrorCategory, isErrorCode, toolCallError } from './errors.js';
import type { ToolCallError } from './errors.js';

const MAX_DETAILS = 100;
const MAX_TEXT = 2_000;

/** The error a reply's `tollgate-error` header carries: JSON `{code,category,message,details}`. */
export function errorFromHeader(value: string): ToolCallError {
  const trimmed = value.trim();
  if (isErrorCode(trimmed))
    return toolCallError({ code: trimmed, message: defaultMessage(trimmed) });
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return malformed('the tollgate-error header is neither JSON nor an error code');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return malformed('the tollgate-error header is not a JSON object');
  }
  const { code, category, message, details } = parsed as Record<string, unknown>;
  return fromParts(code, category, message, Array.isArray(details) ? details : []);
}

/** The error of a CallResult or completion event (proto enums → stable names). */
export function errorFromProto(error: ProtoError | undefined): ToolCallError {
  if (error === undefined) return malformed('an error result carries no error');
  const code = ProtoCode[error.code];
  const category = ProtoCategory[error.category]?.toLowerCase();
  return fromParts(code, category, error.message, error.details.map(protoDetail));
}

function protoDetail(detail: ProtoDetail): Record<string, string> {
  return {
    path: detail.path,
    message: detail.message,
    expected: detail.expected,
    found: detail.found,
  };
}

function fromParts(
  code: unknown,
  category: unknown,
  message: unknown,
  details: unknown[],
): ToolCallError {
  const knownCode: ErrorCode = isErrorCode(code) ? code : 'INTERNAL';
  const knownCategory: ErrorCategory | undefined = isErrorCategory(category) ? category : undefined;
  const text =
    typeof message === 'string' && message !== '' ? clip(message) : defaultMessage(knownCode);
  return toolCallError({
    code: knownCode,
    // The category travels with the code; an unknown code from a newer server keeps it too.
    ...(knownCategory !== undefined ? { category: knownCategory } : {}),
    message: isErrorCode(code)
      ? text
      : `${text} (code ${JSON.stringify(String(code)).slice(0, 80)})`,
    details: details.slice(0, MAX_DETAILS).flatMap(toDetail),
  });
}

function toDetail(item: unknown): ErrorDetail[] {
  if (typeof item !== 'object' || item === null) return [];
  const { path, message, expected, found } = item as Record<string, unknown>;
  if (typeof path !== 'string' || typeof message !== 'string') return [];
  return [
    {
      path: clip(path),
      message: clip(message),
      ...(typeof expected === 'string' && expected !== '' ? { expected: clip(expected) } : {}),
      ...(typeof found === 'string' && found !== '' ? { found: clip(found) } : {}),
    },
  ];
}

/**
 * A NATS request failure. Nobody listening, or no reply in time, means a Tollgate service is
 * missing — for a call, the executor of its kind is not running or stopped mid-call (its own
 * deadline answers before the client's, so silence is never a slow upstream): retryable
 * SERVICE_UNAVAILABLE. So is a bus that cannot be reached or a closed client (nothing was sent);
 * anything else is internal.
 */
export function errorFromTransport(
  err: unknown,
  subject: string,
  timeoutMs: number,
): ToolCallError {
  const call = isCallSubject(subject);
  if (isNoResponders(err)) {
    return toolCallError(
      {
        code: 'SERVICE_UNAVAILABLE',
        message: call
          ? `no Tollgate executor is running for ${subject}: the call was not sent to the upstream; try again once an executor is up`
          : `no Tollgate service is answering on ${subject}`,
      },
      { cause: err },
    );
  }
  if (err instanceof natsErrors.TimeoutError || causeIs(err, natsErrors.TimeoutError)) {
    return toolCallError(
      {
        code: 'SERVICE_UNAVAILABLE',
        message: call
          ? `the Tollgate executor did not answer on ${subject} within ${timeoutMs} ms (it stopped or lost its connection mid-call): the call may have run; fetch its result by call id, or retry a write with the same idempotency key`
          : `no reply on ${subject} within ${timeoutMs} ms`,
      },
      { cause: err },
    );
  }
  if (
    err instanceof natsErrors.ClosedConnectionError ||
    err instanceof natsErrors.DrainingConnectionError ||
    err instanceof natsErrors.ConnectionError
  ) {
    return toolCallError(
      {
        code: 'SERVICE_UNAVAILABLE',
        message: `Tollgate's bus cannot be used (${err.message}): nothing was sent; ${
          err instanceof natsErrors.ConnectionError
            ? 'try again once NATS is reachable'
            : 'this client was closed, connect again'
        }`,
      },
      { cause: err },
    );
  }
  if (
    err instanceof natsErrors.AuthorizationError ||
    err instanceof natsErrors.UserAuthenticationExpiredError
  ) {
    return toolCallError(
      {
        code: 'UNAUTHENTICATED',
        message: `the bus refused the token (${err.message}): it is missing, expired, or not signed by a trusted issuer`,
      },
      { cause: err },
    );
  }
  if (err instanceof natsErrors.PermissionViolationError) {
    return toolCallError(
      { code: 'UNAUTHENTICATED', message: `NATS refused to ${err.operation} on ${err.subject}` },
      { cause: err },
    );
  }
  return toolCallError(
    {
      code: 'INTERNAL',
      message: `request on ${subject} failed: ${(err as Error)?.message ?? String(err)}`,
    },
    { cause: err },
  );
}

function isNoResponders(err: unknown): boolean {
  if (err instanceof natsErrors.NoRespondersError) return true;
  if (err instanceof natsErrors.RequestError && err.isNoResponders()) return true;
  return causeIs(err, natsErrors.NoRespondersError);
}

function causeIs(err: unknown, type: new (...args: never[]) => Error): boolean {
  return err instanceof Error && err.cause instanceof type;
}

const rpcStatusCode: Partial<Record<number, ErrorCode>> = {
  [RpcStatus.INVALID_ARGUMENT]: 'INVALID_ARGUMENT',
  [RpcStatus.NOT_FOUND]: 'NOT_FOUND',
  [RpcStatus.ALREADY_EXISTS]: 'ALREADY_EXISTS',
  [RpcStatus.ABORTED]: 'VERSION_CONFLICT',
  [RpcStatus.PERMISSION_DENIED]: 'POLICY_DENIED',
  [RpcStatus.UNAUTHENTICATED]: 'UNAUTHENTICATED',
  [RpcStatus.UNAVAILABLE]: 'UPSTREAM_UNAVAILABLE',
  [RpcStatus.DEADLINE_EXCEEDED]: 'UPSTREAM_TIMEOUT',
  [RpcStatus.RESOURCE_EXHAUSTED]: 'RATE_LIMITED',
  [RpcStatus.FAILED_PRECONDITION]: 'FAILED_PRECONDITION',
};

/** A gRPC failure (registry, memory): the stable code from trailers, else one from the status. */
export function errorFromRpc(err: unknown, what: string): ToolCallError {
  if (!isRpcError(err)) {
    return toolCallError(
      { code: 'INTERNAL', message: `${what} failed: ${(err as Error)?.message ?? String(err)}` },
      { cause: err },
    );
  }
  const code: ErrorCode = isErrorCode(err.tollgateCode)
    ? err.tollgateCode
    : (rpcStatusCode[err.code] ?? 'INTERNAL');
  return toolCallError(
    {
      code,
      message: `${what}: ${clip(err.message)}`,
      details: err.details.slice(0, MAX_DETAILS).flatMap(toDetail),
    },
    { cause: err },
  );
}

/** An InternalError about a reply or stored document the SDK could not accept. */
export function malformed(message: string): ToolCallError {
  return toolCallError({ code: 'INTERNAL', message });
}

function defaultMessage(code: ErrorCode): string {
  return code.toLowerCase().replaceAll('_', ' ');
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}
