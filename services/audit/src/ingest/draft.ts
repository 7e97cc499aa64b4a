import { toJson } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { ErrorCategory, ErrorCode } from '@tollgate/contracts/common/v1';
import type { Error as CallError, Principal } from '@tollgate/contracts/common/v1';
import { EventEnvelopeSchema } from '@tollgate/contracts/events/v1';
import type { CallCompleted, CallStarted, EventEnvelope } from '@tollgate/contracts/events/v1';
import { DecisionEffect } from '@tollgate/contracts/policy/v1';
import { toolName } from '@tollgate/core';
import { RECORD_FORMAT, UNATTRIBUTED_CHAIN } from '../record.js';
import type { RecordDraft, RecordFacets } from '../record.js';

const NO_FACETS: RecordFacets = {
  session_id: '',
  call_id: '',
  agent: '',
  user: '',
  tool: '',
  tool_version: '',
  resource: '',
  resource_version: 0,
  status: '',
  decision: '',
  policy_ids: [],
  approval_id: '',
  idempotency_key: '',
  error_code: '',
  error_category: '',
  latency_ms: 0,
  upstream_status: 0,
  returned: 0,
  total: null,
  truncated: false,
  bytes: 0,
  trace_id: '',
};

/** Lowercase name of a proto enum value ('' for UNSPECIFIED, the number when unknown). */
export function enumName(values: Record<number, string>, value: number, upper = false): string {
  if (value === 0) return '';
  const name = values[value] ?? String(value);
  return upper ? name : name.toLowerCase();
}

export const statusName = (s: CallStatus) => enumName(CallStatus, s);
export const decisionName = (d: DecisionEffect) => enumName(DecisionEffect, d);
export const errorCodeName = (c: ErrorCode) => enumName(ErrorCode, c, true);

/** The chain an event belongs to. */
export function chainOf(event: EventEnvelope): string {
  return event.tenant === '' ? UNATTRIBUTED_CHAIN : event.tenant;
}

/**
 * What makes two events the same fact: a call outcome is keyed by call id, type and status (a
 * call reported twice under different event ids is stored once), a call's start by call id;
 * anything else by event id.
 */
export function dedupeKey(event: EventEnvelope): string {
  const p = event.payload;
  if (p.case === 'callCompleted' && p.value.callId !== '') {
    return `${event.type}/${p.value.callId}/${statusName(p.value.status) || 'unspecified'}`;
  }
  if ((p.case === 'callDenied' || p.case === 'callStarted') && p.value.callId !== '')
    return `${event.type}/${p.value.callId}`;
  return `event/${event.eventId}`;
}

/** The record for a (screened) event, before it is placed in its chain. */
export function draftRecord(event: EventEnvelope): RecordDraft {
  const chain = chainOf(event);
  return {
    ...NO_FACETS,
    ...facetsOf(event),
    trace_id: event.traceId,
    _id: `${chain}/${dedupeKey(event)}`,
    format: RECORD_FORMAT,
    tenant: chain,
    event_id: event.eventId,
    type: event.type,
    occurred_at: event.occurredAt ? timestampDate(event.occurredAt) : new Date(0),
    event: JSON.stringify(toJson(EventEnvelopeSchema, event)),
  };
}

function who(principal: Principal | undefined): Partial<RecordFacets> {
  return { agent: principal?.agent ?? '', user: principal?.user ?? '' };
}

function errorFacets(error: CallError | undefined): Partial<RecordFacets> {
  if (!error) return {};
  return {
    error_code: errorCodeName(error.code),
    error_category: enumName(ErrorCategory, error.category),
  };
}

/** The facets `call.started` and `call.completed` share. */
function callFacets(c: CallStarted | CallCompleted): Partial<RecordFacets> {
  return {
    ...who(c.principal),
    session_id: c.sessionId,
    call_id: c.callId,
    tool: c.tool,
    tool_version: c.toolVersion,
    resource: c.resource,
    resource_version: c.resourceVersion,
    decision: decisionName(c.decision),
    policy_ids: [...c.policyIds],
    approval_id: c.approvalId,
    idempotency_key: c.idempotencyKey,
  };
}

function facetsOf(event: EventEnvelope): Partial<RecordFacets> {
  const p = event.payload;
  switch (p.case) {
    case 'callCompleted': {
      const c = p.value;
      const meta = c.meta;
      return {
        ...callFacets(c),
        ...errorFacets(c.error),
        status: statusName(c.status),
        latency_ms: meta?.latencyMs ?? 0,
        upstream_status: meta?.upstreamStatus ?? 0,
        returned: meta?.returned ?? 0,
        total: meta?.total ?? null,
        truncated: meta?.truncated ?? false,
        bytes: meta?.bytes ?? 0,
      };
    }
    case 'callStarted':
      return { ...callFacets(p.value), status: 'started' };
    case 'callDenied': {
      const c = p.value;
      return {
        ...who(c.principal),
        ...errorFacets(c.error),
        session_id: c.sessionId,
        call_id: c.callId,
        tool: c.tool,
        resource: c.resource,
        resource_version: c.resourceVersion,
        decision: decisionName(c.decision?.effect ?? DecisionEffect.DENY) || 'deny',
        policy_ids: [...(c.decision?.policyIds ?? [])],
      };
    }
    case 'approvalRequested':
    case 'approvalDecided': {
      const a = p.value.approval;
      return {
        ...who(a?.principal),
        session_id: a?.sessionId ?? '',
        call_id: a?.callId ?? '',
        tool: a?.tool ?? '',
        resource: a?.resource ?? '',
        resource_version: a?.resourceVersion ?? 0,
        approval_id: a?.id ?? '',
        policy_ids: [...(a?.policyIds ?? [])],
      };
    }
    case 'toolsListed':
      return { ...who(p.value.principal), session_id: p.value.sessionId };
    case 'resourceChanged':
      return { resource: p.value.name, resource_version: p.value.version };
    case 'toolWithdrawn':
      return {
        resource: p.value.resource,
        resource_version: p.value.resourceVersion,
        tool: toolName(p.value.resource, p.value.operation),
      };
    case 'memoryWritten':
      return { agent: p.value.agent, user: p.value.user, session_id: p.value.sessionId };
    default:
      return {};
  }
}
