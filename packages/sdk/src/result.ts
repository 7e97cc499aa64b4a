/**
 * What a call returns, in plain TypeScript: the CallResult envelope turned into a tagged union,
 * validated on the way in. Pure.
 */
import { toJson } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { CallStatus } from '@tollgate/contracts/call/v1';
import type { CallMeta as ProtoCallMeta, CallResult } from '@tollgate/contracts/call/v1';
import type { ToolCallError } from './errors.js';
import { errorFromProto, malformed } from './wire-errors.js';

/** Facts about how a call ran (CallResult.meta). */
export interface CallMeta {
  resource: string;
  resourceVersion: number;
  tool: string;
  toolVersion: string;
  latencyMs: number;
  /** Upstream HTTP status; 0 when there was no upstream response. */
  upstreamStatus: number;
  /** Items in `data`. */
  returned: number;
  /** Total matches upstream, when known. */
  total?: number;
  /** True when a row or byte cap cut the result. */
  truncated: boolean;
  bytes: number;
  traceId: string;
  /** Pass as the `cursor` argument for the next page; absent when there is none. */
  nextCursor?: string;
  /** Your preferred fields, returned because the call named no `fields`; absent otherwise. */
  defaultFields?: string[];
}

/** The call ran; `data` is the shaped result (returnable fields only, redacted, capped). */
export interface OkOutcome {
  status: 'ok';
  callId: string;
  data: JsonValue;
  meta: CallMeta | undefined;
}

/** The call failed; `error.category` says what to do (fix arguments, retry, give up, ask). */
export interface ErrorOutcome {
  status: 'error';
  callId: string;
  error: ToolCallError;
  meta: CallMeta | undefined;
}

/** How long to wait for a parked or accepted call to finish. */
export interface WaitOptions {
  /** Give up after this long (default: the client's `completionTimeoutMs`, 5 minutes). */
  timeoutMs?: number;
  /** Poll `call_result` this often besides listening for the event (default 2000 ms). */
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

/** A finished call. */
export type FinalOutcome = OkOutcome | ErrorOutcome;

/**
 * Parked until a person decides. `wait()` resolves with the final outcome (ok, or an error
 * such as APPROVAL_REJECTED); on timeout it rejects with a NeedsHumanError (still pending).
 */
export interface PendingApprovalOutcome {
  status: 'pending_approval';
  callId: string;
  approvalId: string;
  meta: CallMeta | undefined;
  wait(options?: WaitOptions): Promise<FinalOutcome>;
}

/**
 * Long-running; runs on. `wait()` resolves with the final outcome; on timeout it rejects with
 * a RetryableError (still running — wait again later).
 */
export interface AcceptedOutcome {
  status: 'accepted';
  callId: string;
  taskId: string;
  meta: CallMeta | undefined;
  wait(options?: WaitOptions): Promise<FinalOutcome>;
}

/** The typed envelope `TollgateClient.call` returns. */
export type CallOutcome = OkOutcome | ErrorOutcome | PendingApprovalOutcome | AcceptedOutcome;

/** A CallResult before a `wait` is attached. */
export type ReadResult =
  | FinalOutcome
  | { status: 'pending_approval'; callId: string; approvalId: string; meta: CallMeta | undefined }
  | { status: 'accepted'; callId: string; taskId: string; meta: CallMeta | undefined };

/** Validates and converts a CallResult for the call `callId`. Throws InternalError when malformed. */
export function readCallResult(result: CallResult, callId: string): ReadResult {
  if (result.callId !== '' && result.callId !== callId) {
    throw malformed(`the reply is for call ${result.callId}, not ${callId}`);
  }
  const meta = readMeta(result.meta);
  switch (result.status) {
    case CallStatus.OK:
      return {
        status: 'ok',
        callId,
        data: result.data ? toJson(ValueSchema, result.data) : null,
        meta,
      };
    case CallStatus.ERROR:
      if (result.error === undefined)
        throw malformed(`call ${callId}: status ERROR without an error`);
      return { status: 'error', callId, error: errorFromProto(result.error), meta };
    case CallStatus.PENDING_APPROVAL:
      if (result.approvalId === '')
        throw malformed(`call ${callId}: PENDING_APPROVAL without approval_id`);
      return { status: 'pending_approval', callId, approvalId: result.approvalId, meta };
    case CallStatus.ACCEPTED:
      if (result.taskId === '') throw malformed(`call ${callId}: ACCEPTED without task_id`);
      return { status: 'accepted', callId, taskId: result.taskId, meta };
    default:
      throw malformed(`call ${callId}: the reply has no status (got ${String(result.status)})`);
  }
}

export function readMeta(meta: ProtoCallMeta | undefined): CallMeta | undefined {
  if (meta === undefined) return undefined;
  return {
    resource: meta.resource,
    resourceVersion: meta.resourceVersion,
    tool: meta.tool,
    toolVersion: meta.toolVersion,
    latencyMs: meta.latencyMs,
    upstreamStatus: meta.upstreamStatus,
    returned: meta.returned,
    ...(meta.total !== undefined ? { total: meta.total } : {}),
    truncated: meta.truncated,
    bytes: meta.bytes,
    traceId: meta.traceId,
    ...(meta.nextCursor !== '' ? { nextCursor: meta.nextCursor } : {}),
    ...(meta.defaultFields.length > 0 ? { defaultFields: [...meta.defaultFields] } : {}),
  };
}

/** True for statuses after which nothing more happens to a call. */
export function isFinalStatus(status: CallStatus): boolean {
  return status === CallStatus.OK || status === CallStatus.ERROR;
}
