/**
 * Sends a compiled http request: the address pinned once for the call, the credential
 * resolved just in time, the operation's timeout inside the caller's deadline, retries with
 * backoff for idempotent requests only. Errors name the resource, never the URL's secrets.
 */
import { TollgateError, UpstreamError, callerLimits, withAttempts } from '@tollgate/core';
import type { CompiledRequest, ExecuteContext, UpstreamResponse } from '@tollgate/core';
import { httpSpec } from '../kind/spec.js';
import type { HttpRequest } from '../native.js';
import { pinAddress, refused } from './address.js';
import { authenticate } from './credential.js';
import { statusError } from './failure.js';
import { SendFailure, send } from './send.js';
import type { IncomingAnswer, SendLimits } from './send.js';

export const DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;

/** The body as execute hands it to shape. */
export interface HttpAnswerBody {
  contentType: string;
  /** Parsed JSON, when the content type is JSON. */
  json?: unknown;
  /** Bytes received (a body that is not JSON is not kept). */
  size: number;
  link?: string;
}

export async function executeRequest(
  request: CompiledRequest<HttpRequest>,
  ctx: ExecuteContext,
): Promise<UpstreamResponse> {
  const started = Date.now();
  const spec = httpSpec(ctx.descriptor);
  const base = new URL(spec.connection.baseUrl);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw refused(request.resource);
  const origin = base.origin;
  const limits: SendLimits = {
    resource: request.resource,
    origin,
    timeoutMs: request.timeoutMs,
    maxBytes: spec.connection.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
  };
  limits.pinned = await pinAddress(new URL(origin), request.resource, ctx.egress);
  const auth = await authenticate(
    spec.connection.auth,
    spec.connection.credentialRef,
    ctx.credentials,
    limits,
  );
  const url = new URL(request.native.url);
  if (url.origin !== origin)
    throw new TollgateError('INTERNAL', 'The request left the declared host.');
  for (const [name, value] of Object.entries(auth.query)) url.searchParams.set(name, value);
  const outgoing = {
    method: request.native.method,
    url,
    headers: { ...request.native.headers, ...auth.headers },
    ...(request.native.body === undefined
      ? {}
      : { body: Buffer.from(JSON.stringify(request.native.body)) }),
  };
  const { value, attempts } = await withAttempts(
    {
      idempotent: request.idempotent,
      timeoutMs: limits.timeoutMs,
      ...callerLimits(ctx),
    },
    {
      async send(attempt) {
        const answer = await send(outgoing, { ...limits, timeoutMs: attempt.timeoutMs });
        const body = readBody(answer, request.resource);
        if (answer.status >= 200 && answer.status < 300) return { status: answer.status, body };
        throw new Rejected(
          statusError(
            answer.status,
            body.json,
            request.resource,
            request.idempotent,
            attempt.number,
          ),
        );
      },
      fail(err, attempt) {
        const failure =
          err instanceof Rejected
            ? err.error
            : err instanceof SendFailure
              ? sendError(err, request, attempt)
              : undefined;
        if (failure === undefined) return { error: err as Error, retryable: false };
        return { error: failure, retryable: failure.retryable };
      },
      expired: (made) => deadline(request, made),
    },
  );
  return { ...value, attempts, latencyMs: Date.now() - started };
}

/** An error status the API answered with, carried from the attempt to the retry decision. */
class Rejected extends Error {
  constructor(readonly error: UpstreamError & { retryable: boolean }) {
    super(error.message);
    this.name = 'Rejected';
  }
}

function readBody(answer: IncomingAnswer, resource: string): HttpAnswerBody {
  const contentType = answer.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const out: HttpAnswerBody = {
    contentType,
    size: answer.body.length,
    ...(answer.link === undefined ? {} : { link: answer.link }),
  };
  if (answer.body.length === 0 || !/^application\/([a-z.+-]*\+)?json$/.test(contentType))
    return out;
  try {
    out.json = JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw new UpstreamError(
      'UPSTREAM_BAD_RESPONSE',
      `The API of ${resource} sent a body that is not valid JSON.`,
      {
        attempts: 1,
        upstreamStatus: answer.status,
      },
    );
  }
  return out;
}

function sendError(err: SendFailure, request: CompiledRequest<HttpRequest>, attempts: number) {
  const write = !request.idempotent;
  const make = (
    code: 'UPSTREAM_TIMEOUT' | 'UPSTREAM_UNAVAILABLE' | 'WRITE_OUTCOME_UNKNOWN',
    message: string,
    retryable: boolean,
  ) =>
    Object.assign(new UpstreamError(code, message, { attempts, cause: new Error(err.errno) }), {
      retryable,
    });
  if (write && err.sent)
    return make(
      'WRITE_OUTCOME_UNKNOWN',
      `The connection to the API of ${request.resource} failed while sending a change; it may or may not have been applied. Check before repeating it.`,
      false,
    );
  if (err.reason === 'timeout')
    return make('UPSTREAM_TIMEOUT', `The API of ${request.resource} did not answer in time.`, true);
  if (err.reason === 'cancelled')
    return make(
      'UPSTREAM_TIMEOUT',
      `The call was cancelled before the API of ${request.resource} answered.`,
      false,
    );
  return make(
    'UPSTREAM_UNAVAILABLE',
    `The API of ${request.resource} cannot be reached from here (the destination is not allowed or did not answer).`,
    true,
  );
}

function deadline(request: CompiledRequest, attempts: number): UpstreamError {
  return new UpstreamError(
    'UPSTREAM_TIMEOUT',
    `The call's deadline passed before the API of ${request.resource} answered.`,
    {
      attempts,
    },
  );
}
