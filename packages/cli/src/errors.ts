import { RpcStatus, isRpcError } from '@tollgate/contracts';
import { isTollgateError } from '@tollgate/core';

/** How the process ends: 0 done, 1 the operation failed, 2 the command line was wrong. */
export const ExitCode = { ok: 0, failed: 1, usage: 2 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** One offending path, as services and descriptor validation report it. */
export interface FailureDetail {
  path: string;
  message: string;
  expected?: string;
  found?: string;
}

/** What a failed command reports: one line for people, the same facts as JSON for scripts. */
export interface Failure {
  /** A stable code: `USAGE`, a Tollgate error code (`POLICY_DENIED`…), or a gRPC status name. */
  code: string;
  message: string;
  details: FailureDetail[];
  exitCode: ExitCode;
}

/**
 * A failure the CLI itself detects. `usage` ones (unknown command, malformed flag, unreadable
 * file) exit 2; the others exit 1.
 */
export class CliError extends Error {
  readonly code: string;
  readonly details: FailureDetail[];
  readonly exitCode: ExitCode;

  constructor(
    code: string,
    message: string,
    options: { details?: FailureDetail[]; usage?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.code = code;
    this.details = options.details ?? [];
    this.exitCode = options.usage ? ExitCode.usage : ExitCode.failed;
  }
}

/** The command line is wrong: exit 2. */
export function usageError(message: string, details: FailureDetail[] = []): CliError {
  return new CliError('USAGE', message, { usage: true, details });
}

/** Which service a gRPC call went to, so an unreachable one can be named. */
export interface FailureContext {
  service?: string;
  address?: string;
}

/**
 * Any thrown value as a Failure: CLI errors as they are; gRPC errors with their Tollgate code
 * (or status name) and details; SDK errors by code; anything else INTERNAL with its message.
 */
export function toFailure(err: unknown, context: FailureContext = {}): Failure {
  if (err instanceof CliError) {
    return { code: err.code, message: err.message, details: err.details, exitCode: err.exitCode };
  }
  if (isRpcError(err)) {
    if (err.code === RpcStatus.UNAVAILABLE && err.tollgateCode === undefined) {
      const where = context.service
        ? `${context.service}${context.address ? ` at ${context.address}` : ''}`
        : 'the service';
      return {
        code: 'UNAVAILABLE',
        message: `${where} is not reachable (${transportReason(err.message)}); is the stack up? try \`tollgate status\``,
        details: [],
        exitCode: ExitCode.failed,
      };
    }
    return {
      code: err.tollgateCode ?? RpcStatus[err.code] ?? 'UNKNOWN',
      message: err.message,
      details: err.details.map(cleanDetail),
      exitCode: ExitCode.failed,
    };
  }
  if (isTollgateError(err) || isCodedError(err)) {
    return {
      code: err.code,
      message: err.message,
      details: err.details.map(cleanDetail),
      exitCode: ExitCode.failed,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'INTERNAL', message, details: [], exitCode: ExitCode.failed };
}

/** An SDK ToolCallError (checked by shape, so the SDK loads only when a command needs it). */
function isCodedError(
  err: unknown,
): err is Error & { code: string; category: string; details: FailureDetail[] } {
  if (!(err instanceof Error)) return false;
  const { code, category, details } = err as unknown as Record<string, unknown>;
  return typeof code === 'string' && typeof category === 'string' && Array.isArray(details);
}

function cleanDetail(detail: FailureDetail): FailureDetail {
  return {
    path: detail.path,
    message: detail.message,
    ...(detail.expected ? { expected: detail.expected } : {}),
    ...(detail.found ? { found: detail.found } : {}),
  };
}

/** `tollgate: <message>` on one line (newlines in the message folded). */
export function failureLine(failure: Failure): string {
  const code = failure.code === 'USAGE' || failure.code === 'INTERNAL' ? '' : `${failure.code}: `;
  return `tollgate: ${code}${failure.message.replace(/\s*\n\s*/g, ' ')}`;
}

/** The useful part of a grpc-js connection failure (`connect ECONNREFUSED 127.0.0.1:7061`). */
function transportReason(message: string): string {
  const last = /Last error: (?:Error: )?(.*?)(?:\. Resolution note:.*)?$/s.exec(message);
  return (last?.[1] ?? message).trim() || message;
}
