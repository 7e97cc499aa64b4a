import { fromBinary, toBinary } from '@bufbuild/protobuf';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { CallRequestSchema, CallResultSchema, CallStatus } from '@tollgate/contracts/call/v1';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import type { CallRequest } from '@tollgate/contracts/call/v1';
import { TollgateError } from '@tollgate/core';
import {
  ERROR_HEADER,
  EventTypes,
  consumeEvents,
  deadLetter,
  decodeEnvelope,
  serve,
  subjects,
  wireError,
} from '@tollgate/kit';
import type { JsMsg, Logger, ServeReply } from '@tollgate/kit';
import { CALL_ID } from './call-trail.js';
import type { Executor } from './executor.js';

/** Largest call request accepted, bytes; larger ones are refused before decoding. */
export const MAX_REQUEST_BYTES = 256 * 1024;
const MAX_POLL_BYTES = 4 * 1024;

/** The NATS side of an executor; `stop()` unsubscribes and stops consuming. */
export interface ExecutorApi {
  stop(): Promise<void>;
}

export interface ApiOptions {
  /** Resource kinds to serve (one queue group each). */
  kinds: readonly string[];
  logger: Logger;
  /** Durable consumer of `approval.decided` shared by all instances. */
  approvalsDurable: string;
  /** How long one approval may take to settle before JetStream redelivers it, ms. */
  approvalAckWaitMs: number;
}

/**
 * Serves an executor on NATS: calls on `tollgate.v1.call.<kind>.*` in the queue group
 * `executor-<kind>` for every kind it has a connector for, polling on
 * `tollgate.v1.svc.executor.call_result`, and the shared durable consumer of `approval.decided`.
 * Requests that are not calls at all (too large, undecodable, a bad call id) are answered with
 * the `tollgate-error` header; every call gets a `CallResult`.
 */
export async function serveExecutor(
  nc: NatsConnection,
  executor: Executor,
  options: ApiOptions,
): Promise<ExecutorApi> {
  const { logger } = options;
  const subscriptions: Subscription[] = options.kinds.map((kind) =>
    serve(nc, subjects.callsOfKind(kind), (msg) => handleCall(executor, kind, msg, logger), {
      queue: subjects.executorQueue(kind),
      logger,
      spanName: 'executor.call',
    }),
  );
  subscriptions.push(
    serve(nc, subjects.callResult, (msg) => handlePoll(executor, msg), {
      queue: 'executor-call-result',
      logger,
      spanName: 'executor.call_result',
    }),
  );
  const approvals = await consumeEvents(nc, {
    durable: options.approvalsDurable,
    types: [EventTypes.approvalDecided],
    maxDeliver: 50,
    ackWaitMs: options.approvalAckWaitMs,
  });
  const consuming = (async () => {
    for await (const msg of approvals) void settleOne(executor, msg, logger);
  })();
  return {
    async stop() {
      for (const sub of subscriptions) sub.unsubscribe();
      await approvals.close();
      await consuming;
    },
  };
}

async function handleCall(
  executor: Executor,
  kind: string,
  msg: Msg,
  logger: Logger,
): Promise<ServeReply> {
  const receivedAt = Date.now();
  const started = performance.now();
  const request = readRequest(msg, MAX_REQUEST_BYTES);
  const decodeMs = performance.now() - started;
  if (request instanceof TollgateError) return failure(request);
  if (request.callId === '') request.callId = crypto.randomUUID();
  if (!CALL_ID.test(request.callId)) {
    return failure(
      new TollgateError(
        'INVALID_ARGUMENT',
        'call_id must be 1-64 letters, digits, "-" or "_" (a UUID).',
        {
          details: [{ path: 'call_id', message: 'not a call id', expected: '[A-Za-z0-9_-]{1,64}' }],
        },
      ),
    );
  }
  const resource = msg.subject.split('.')[4] ?? '';
  const debug = logger.isLevelEnabled('debug');
  let stages: Record<string, number> = {};
  const result = await executor.call(request, {
    authorization: msg.headers?.get('authorization') || undefined,
    kind,
    resource,
    receivedAt,
    traceparent: msg.headers?.get('traceparent') || undefined,
    ...(debug ? { timings: (t) => (stages = t) } : {}),
  });
  const encoding = performance.now();
  const data = toBinary(CallResultSchema, result);
  if (debug) {
    // Per-stage milliseconds of this call (the executor README's breakdown is read from these).
    const encodeMs = performance.now() - encoding;
    const round = (ms: number) => Math.round(ms * 1000) / 1000;
    logger.debug(
      {
        callId: result.callId,
        tool: request.tool.slice(0, 128),
        status: CallStatus[result.status],
        ...(result.error ? { code: ErrorCode[result.error.code] } : {}),
        ms: round(performance.now() - started),
        stagesMs: Object.fromEntries(
          // The logger censors any key named `credential`: that stage is logged as `credential_ref`.
          Object.entries({ decode: decodeMs, ...stages, encode: encodeMs }).map(([k, v]) => [
            k === 'credential' ? 'credential_ref' : k,
            round(v),
          ]),
        ),
      },
      'call answered',
    );
  }
  return { data };
}

async function handlePoll(executor: Executor, msg: Msg): Promise<ServeReply> {
  const request = readRequest(msg, MAX_POLL_BYTES);
  if (request instanceof TollgateError) return failure(request);
  try {
    const result = await executor.poll(
      request.callId,
      msg.headers?.get('authorization') || undefined,
    );
    return { data: toBinary(CallResultSchema, result) };
  } catch (err) {
    return failure(err);
  }
}

/** The request a message carries, or why it is not one (checked before any decoding). */
function readRequest(msg: Msg, maxBytes: number): CallRequest | TollgateError {
  if (msg.data.length > maxBytes) {
    return new TollgateError(
      'INVALID_ARGUMENT',
      `The request is ${msg.data.length} bytes; at most ${maxBytes} bytes are accepted. Send smaller arguments.`,
      {
        details: [
          {
            path: '',
            message: 'request too large',
            expected: `at most ${maxBytes} bytes`,
            found: `${msg.data.length} bytes`,
          },
        ],
      },
    );
  }
  try {
    return fromBinary(CallRequestSchema, msg.data);
  } catch (err) {
    if (/recursion depth/.test((err as Error)?.message ?? '')) {
      return new TollgateError(
        'INVALID_ARGUMENT',
        'The arguments are nested too deeply to read; tool arguments are never more than a few levels deep.',
        {
          details: [
            { path: 'arguments', message: 'nested too deeply', expected: 'at most 40 levels' },
          ],
        },
      );
    }
    return new TollgateError(
      'INVALID_ARGUMENT',
      `The request is not a ${CallRequestSchema.typeName}.`,
    );
  }
}

function failure(err: unknown): ServeReply {
  return { data: new Uint8Array(), headers: { [ERROR_HEADER]: JSON.stringify(wireError(err)) } };
}

async function settleOne(executor: Executor, msg: JsMsg, logger: Logger): Promise<void> {
  let envelope;
  try {
    envelope = decodeEnvelope(msg.data);
  } catch {
    deadLetter(msg, 'not an event envelope');
    return;
  }
  if (
    envelope.payload.case !== 'approvalDecided' ||
    envelope.payload.value.approval === undefined
  ) {
    deadLetter(msg, 'not an approval decision');
    return;
  }
  try {
    const outcome = await executor.settleApproval(envelope.payload.value.approval);
    if (outcome === 'ack') msg.ack();
    else msg.nak(1_000);
  } catch (err) {
    logger.error(
      { err: { name: (err as Error)?.name, message: (err as Error)?.message } },
      'approval settlement failed',
    );
    msg.nak(1_000);
  }
}
