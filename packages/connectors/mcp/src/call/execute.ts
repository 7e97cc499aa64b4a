/**
 * Sending a compiled call to the upstream: the pooled session of this resource version and
 * tenant, the pins checked (a withdrawn tool is refused before anything is sent), the tool's
 * timeout inside the caller's deadline, retries with backoff for read tools only. A call that
 * times out ends the session — the server may hang — and the next call starts a new one.
 */
import { TollgateError, UpstreamError, callerLimits, withAttempts } from '@tollgate/core';
import type { CompiledRequest, ExecuteContext, UpstreamResponse } from '@tollgate/core';
import type { SessionPool } from '../upstream/pool.js';
import { errorName } from '../upstream/session.js';
import type { UpstreamSession } from '../upstream/session.js';
import type { McpRequest } from './compile.js';

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
    const { value, attempts } = await withAttempts(
      {
        idempotent: request.idempotent,
        timeoutMs: request.timeoutMs,
        ...callerLimits(ctx),
      },
      {
        async send(attempt) {
          let session: UpstreamSession;
          try {
            session = await pool.session(ctx.descriptor, ctx.credentials);
            await session.recheck(false);
          } catch (err) {
            throw new NoSession(err);
          }
          refuseWithdrawn(session, request);
          try {
            return await session.client.callTool(
              { name: request.native.tool, arguments: request.native.arguments },
              {
                timeout: attempt.timeoutMs,
                ...(attempt.signal === undefined ? {} : { signal: attempt.signal }),
              },
            );
          } catch (err) {
            throw new CallFailed(err, session);
          }
        },
        async fail(err, attempt) {
          if (err instanceof NoSession) {
            const cause = err.failure;
            if (cause instanceof TollgateError && cause.code !== 'UPSTREAM_UNAVAILABLE')
              return { error: cause, retryable: false };
            const message =
              cause instanceof TollgateError
                ? cause.message
                : `The MCP server of ${request.resource} could not be reached (${errorName(cause)}).`;
            const error = new UpstreamError('UPSTREAM_UNAVAILABLE', message, { attempts: attempt });
            return { error, retryable: true };
          }
          if (!(err instanceof CallFailed)) return { error: err as Error, retryable: false };
          const failure = classify(err.failure, err.session, request);
          if (failure.discard) await pool.discard(ctx.descriptor);
          const error = new UpstreamError(failure.code, failure.message, { attempts: attempt });
          return { error, retryable: failure.retryable };
        },
        expired: (made) =>
          new UpstreamError(
            'UPSTREAM_TIMEOUT',
            `The call of ${request.resource} ran past its deadline.`,
            { attempts: made },
          ),
      },
    );
    return {
      status: value.isError === true ? 422 : 200,
      body: value,
      attempts,
      latencyMs: Date.now() - started,
    };
  };
}

/** The pooled session could not be had (started, reached or rechecked) for this attempt. */
class NoSession extends Error {
  constructor(readonly failure: unknown) {
    super('no session');
    this.name = 'NoSession';
  }
}

/** The tool call failed on this session. */
class CallFailed extends Error {
  constructor(
    readonly failure: unknown,
    readonly session: UpstreamSession,
  ) {
    super('call failed');
    this.name = 'CallFailed';
  }
}

/** A tool whose definition changed since it was pinned is refused before anything is sent. */
function refuseWithdrawn(session: UpstreamSession, request: CompiledRequest<McpRequest>): void {
  const withdrawn = session.withdrawal(request.native.tool);
  if (withdrawn === undefined) return;
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
