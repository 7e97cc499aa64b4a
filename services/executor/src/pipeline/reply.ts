import { create, fromJson } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { CallMetaSchema, CallResultSchema, CallStatus } from '@tollgate/contracts/call/v1';
import type { CallMeta, CallResult } from '@tollgate/contracts/call/v1';
import { ErrorCategory, ErrorCode, ErrorSchema } from '@tollgate/contracts/common/v1';
import type { Error as ProtoError } from '@tollgate/contracts/common/v1';
import { TollgateError, isTollgateError, isUpstreamError } from '@tollgate/core';
import type { ShapedResult } from '@tollgate/core';
import type { CallTrail } from '../call-trail.js';

const MAX_DETAILS = 25;
const MAX_TEXT = 300;

/** The reply meta of a call (the envelope's `meta`): everything known about how it ran. */
export function metaOf(trail: CallTrail, now: number, shaped?: ShapedResult): CallMeta {
  return create(CallMetaSchema, {
    resource: trail.resource?.name ?? '',
    resourceVersion: trail.resource?.version ?? 0,
    // The tool the agent called: a saved query's own tool and version, not its base tool's.
    tool: trail.savedQuery?.tool ?? trail.tool?.name ?? trail.requestedTool.slice(0, 128),
    toolVersion: trail.savedQuery ? trail.savedQuery.toolVersion : (trail.tool?.version ?? ''),
    latencyMs: uint(now - trail.startedAt),
    upstreamStatus: uint(trail.upstreamStatus ?? 0),
    returned: uint(shaped?.returned ?? 0),
    ...(shaped?.total !== undefined ? { total: uint(shaped.total.value) } : {}),
    truncated: shaped?.truncated ?? false,
    bytes: uint(shaped?.bytes ?? 0),
    traceId: trail.traceId,
    nextCursor: shaped?.cursor ?? '',
    defaultFields: [...(trail.defaultFields ?? [])],
  });
}

export function okResult(trail: CallTrail, shaped: ShapedResult, now: number): CallResult {
  return create(CallResultSchema, {
    callId: trail.callId,
    status: CallStatus.OK,
    data: fromJson(ValueSchema, (shaped.data ?? null) as JsonValue),
    meta: metaOf(trail, now, shaped),
  });
}

export function errorResult(trail: CallTrail, err: TollgateError, now: number): CallResult {
  return create(CallResultSchema, {
    callId: trail.callId,
    status: CallStatus.ERROR,
    error: toProtoError(err),
    meta: metaOf(trail, now),
  });
}

export function pendingResult(trail: CallTrail, approvalId: string, now: number): CallResult {
  return create(CallResultSchema, {
    callId: trail.callId,
    status: CallStatus.PENDING_APPROVAL,
    approvalId,
    meta: metaOf(trail, now),
  });
}

export function acceptedResult(trail: CallTrail, now: number): CallResult {
  return create(CallResultSchema, {
    callId: trail.callId,
    status: CallStatus.ACCEPTED,
    taskId: trail.callId,
    meta: metaOf(trail, now),
  });
}

/** The wire form of an agent-visible error, details capped so a hostile input cannot bloat it. */
export function toProtoError(err: TollgateError): ProtoError {
  return create(ErrorSchema, {
    code: ErrorCode[err.code],
    category: CATEGORY[err.category],
    message: cut(err.message),
    details: err.details.slice(0, MAX_DETAILS).map((d) => ({
      path: cut(d.path),
      message: cut(d.message),
      expected: cut(d.expected ?? ''),
      found: cut(d.found ?? ''),
    })),
  });
}

const CATEGORY: Record<TollgateError['category'], ErrorCategory> = {
  retryable: ErrorCategory.RETRYABLE,
  fix_arguments: ErrorCategory.FIX_ARGUMENTS,
  denied: ErrorCategory.DENIED,
  needs_human: ErrorCategory.NEEDS_HUMAN,
  internal: ErrorCategory.INTERNAL,
};

/**
 * What an agent may be told about a failure: a `TollgateError` as it is (its message is safe by
 * contract), anything else as a generic INTERNAL. Records the upstream status when known.
 */
export function agentError(err: unknown, trail: CallTrail): TollgateError {
  if (isUpstreamError(err) && err.upstreamStatus !== undefined)
    trail.upstreamStatus = err.upstreamStatus;
  if (isTollgateError(err)) return err;
  return new TollgateError('INTERNAL', 'The call failed inside Tollgate; it has been logged.');
}

function cut(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function uint(n: number): number {
  return Math.min(Math.max(0, Math.round(n)), 4_294_967_295);
}
