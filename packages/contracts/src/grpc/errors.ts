import { Metadata, status } from '@grpc/grpc-js';
import type { ServiceError, StatusObject } from '@grpc/grpc-js';

/** Trailing metadata key carrying the stable Tollgate error code (e.g. `NOT_FOUND`). */
export const ERROR_CODE_KEY = 'tollgate-error-code';
/** Trailing metadata key carrying the error details as JSON (binary header). */
export const ERROR_DETAILS_KEY = 'tollgate-error-details-bin';

const MAX_DETAILS = 100;

/** One offending path in a request; the wire twin of core's `ErrorDetail`. */
export interface RpcErrorDetail {
  path: string;
  message: string;
  expected?: string;
  found?: string;
}

/** Options of an `RpcError` beyond its status code and message. */
export interface RpcErrorOptions extends ErrorOptions {
  /** Stable Tollgate error code (a name of core's `ErrorCodes`). */
  tollgateCode?: string;
  details?: RpcErrorDetail[];
}

/**
 * A failure that crosses gRPC: a status code and a message safe to show the caller, plus an
 * optional Tollgate code and details. Travels as status + trailing metadata and is rebuilt as
 * an `RpcError` by `createClient`.
 */
export class RpcError extends Error {
  readonly code: status;
  readonly tollgateCode: string | undefined;
  readonly details: RpcErrorDetail[];

  constructor(code: status, message: string, options: RpcErrorOptions = {}) {
    super(message, options);
    this.name = 'RpcError';
    this.code = code;
    this.tollgateCode = options.tollgateCode;
    this.details = options.details ?? [];
  }
}

export function isRpcError(err: unknown): err is RpcError {
  return err instanceof RpcError;
}

/** The status a server sends for an `RpcError`, with code and details in trailing metadata. */
export function toStatus(err: RpcError): Partial<StatusObject> {
  const metadata = new Metadata();
  if (err.tollgateCode !== undefined) metadata.set(ERROR_CODE_KEY, err.tollgateCode);
  if (err.details.length > 0) {
    metadata.set(ERROR_DETAILS_KEY, Buffer.from(JSON.stringify(err.details), 'utf8'));
  }
  return { code: err.code, details: err.message, metadata };
}

/** Rebuilds an `RpcError` from what grpc-js reports to a client. */
export function fromServiceError(err: ServiceError): RpcError {
  const code = typeof err.code === 'number' ? err.code : status.UNKNOWN;
  const metadata = err.metadata instanceof Metadata ? err.metadata : new Metadata();
  const [tollgateCode] = metadata.get(ERROR_CODE_KEY);
  const [details] = metadata.get(ERROR_DETAILS_KEY);
  return new RpcError(code, err.details ?? err.message, {
    ...(typeof tollgateCode === 'string' ? { tollgateCode } : {}),
    details: Buffer.isBuffer(details) ? parseDetails(details) : [],
    cause: err,
  });
}

function parseDetails(raw: Buffer): RpcErrorDetail[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.slice(0, MAX_DETAILS).flatMap((item: unknown) => {
    const detail = asDetail(item);
    return detail ? [detail] : [];
  });
}

function asDetail(item: unknown): RpcErrorDetail | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { path, message, expected, found } = item as Record<string, unknown>;
  if (typeof path !== 'string' || typeof message !== 'string') return undefined;
  return {
    path,
    message,
    ...(typeof expected === 'string' ? { expected } : {}),
    ...(typeof found === 'string' ? { found } : {}),
  };
}
