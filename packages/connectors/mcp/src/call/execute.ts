/**
 * Sending a compiled call to the upstream: the pooled session of this resource version and
 * tenant, the pins checked (a withdrawn tool is refused before anything is sent), the tool's
 * timeout inside the caller's deadline, retries with backoff for read tools only. A call that
 * times out ends the session — the server may hang — and the next call starts a new one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { TollgateError, UpstreamError } from '@tollgate/core';
import type { CompiledRequest, ExecuteContext, UpstreamResponse } from '@tollgate/core';
import type { SessionPool } from '../upstream/pool.js';
import { errorName } from '../upstream/session.js';
import type { UpstreamSession } from '../upstream/session.js';
import type { McpRequest } from './compile.js';

const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_BACKOFF_MS = 100;

interface Failure {
  code: 'UPSTREAM_TIMEOUT' | 'UPSTREAM_UNAVAILABLE' | 'UPSTREAM_REJECTED' | 'UPSTREAM_BAD_RESPONSE';
  message: string;
  retryable: boolean;
  /** The session can no longer be trusted to answer (hang, crash, oversized message). */
  discard: boolean;
}

export function executor(pool: SessionPool) {
  return async function executeRequest(
    request: CompiledRequest<McpRequest>,
    ctx: ExecuteContext,
  ): Promise<UpstreamResponse> {
    const started = Date.now();
    const maxAttempts = request.idempotent
      ? Math.max(1, Math.min(ctx.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, 10))
      : 1;
    for (let attempt = 1; ; attempt++) {
      const remaining = ctx.deadline === undefined ? Infinity : ctx.deadline - Date.now();
      if (remaining <= 0 || ctx.signal?.aborted === true) {
        throw new UpstreamError(
          'UPSTREAM_TIMEOUT',
          `The call of ${request.resource} ran past its deadline.`,
          { attempts: attempt - 1 },
        );
      }
      let session: UpstreamSession;
      try {
        session = await pool.session(ctx.descriptor, ctx.credentials);
        await session.recheck(false);
      } catch (err) {
        if (err instanceof TollgateError && err.code !== 'UPSTREAM_UNAVAILABLE') throw err;
        if (attempt < maxAttempts) {
          await backoff(attempt, ctx);
          continue;
        }
        throw new UpstreamError(
          'UPSTREAM_UNAVAILABLE',
          err instanceof TollgateError
            ? err.message
            : `The MCP server of ${request.resource} could not be reached (${errorName(err)}).`,
          { attempts: attempt },
        );
      }
      const withdrawn = session.withdrawal(request.native.tool);
      if (withdrawn !== undefined) {
        throw new TollgateError(
          'FAILED_PRECONDITION',
          `Tool ${request.native.tool} of ${request.resource} is withdrawn: the server's definition changed since it was pinned (${withdrawn.changes.map((c) => c.part).join(', ')}). A new confirmed version brings it back.`,
          {
            details: withdrawn.changes.map((c) => ({
              path: `definition.${c.part}`,
              message: 'changed since pinned',
            })),
          },
        );
      }
      try {
        const result = await session.client.callTool(
          { name: request.native.tool, arguments: request.native.arguments },
          {
            timeout: Math.max(1, Math.min(request.timeoutMs, remaining)),
            ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
          },
        );
        return {
          status: result.isError === true ? 422 : 200,
          body: result,
          attempts: attempt,
          latencyMs: Date.now() - started,
        };
      } catch (err) {
        const failure = classify(err, session, request);
        if (failure.discard) await pool.discard(ctx.descriptor);
        if (!failure.retryable || attempt >= maxAttempts) {
          throw new UpstreamError(failure.code, failure.message, { attempts: attempt });
        }
        await backoff(attempt, ctx);
      }
    }
  };
}

function classify(
  err: unknown,
  session: UpstreamSession,
  request: CompiledRequest<McpRequest>,
): Failure {
  const code = (err as { code?: unknown }).code;
  const what = `${request.native.tool} of ${request.resource}`;
  if (code === 'REQUEST_TIMEOUT') {
    return {
      code: 'UPSTREAM_TIMEOUT',
      message: `${what} did not answer within ${request.timeoutMs} ms; the server was stopped and starts again on the next call.`,
      retryable: request.idempotent,
      discard: true,
    };
  }
  if (
    code === 'CONNECTION_CLOSED' ||
    code === 'NOT_CONNECTED' ||
    code === 'SEND_FAILED' ||
    session.closed
  ) {
    const transport = session.transportError?.message ?? '';
    if (/buffer|exceed|too large|size/i.test(transport)) {
      return {
        code: 'UPSTREAM_BAD_RESPONSE',
        message: `${what} answered with a message larger than the resource allows; it was refused and the server restarted.`,
        retryable: false,
        discard: true,
      };
    }
    return {
      code: 'UPSTREAM_UNAVAILABLE',
      message: `The MCP server of ${request.resource} closed the connection during ${request.native.tool}.`,
      retryable: request.idempotent,
      discard: true,
    };
  }
  if (typeof code === 'number') {
    return {
      code: 'UPSTREAM_REJECTED',
      message: `${what} refused the call (JSON-RPC error ${code}).`,
      retryable: false,
      discard: false,
    };
  }
  return {
    code: 'UPSTREAM_BAD_RESPONSE',
    message: `${what} failed (${errorName(err)}).`,
    retryable: false,
    discard: false,
  };
}

async function backoff(attempt: number, ctx: ExecuteContext): Promise<void> {
  const base = ctx.backoffMs ?? DEFAULT_BACKOFF_MS;
  const delay = Math.round(Math.min(2000, base * 2 ** (attempt - 1)) * (0.5 + Math.random() * 0.5));
  try {
    await sleep(delay, undefined, ctx.signal === undefined ? {} : { signal: ctx.signal });
  } catch {
    /* cancelled: the loop sees the signal */
  }
}
