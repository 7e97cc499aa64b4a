import { create, toBinary } from '@bufbuild/protobuf';
import type { JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { ErrorCategory, ErrorCode } from '@tollgate/contracts/common/v1';
import { EventEnvelopeSchema } from '@tollgate/contracts/events/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { ApprovalStatus, DecisionEffect } from '@tollgate/contracts/policy/v1';
import { EventTypes, envelope, subjects } from '@tollgate/kit';
import type { EventType } from '@tollgate/kit';

/** Options of a `call.completed` event built for a test. */
export interface CallOptions {
  tenant?: string;
  callId?: string;
  sessionId?: string;
  agent?: string;
  tool?: string;
  status?: CallStatus;
  errorCode?: ErrorCode;
  latencyMs?: number;
  truncated?: boolean;
  arguments?: JsonObject;
  eventId?: string;
  occurredAt?: Date;
}

export function callCompleted(o: CallOptions = {}): EventEnvelope {
  const tenant = o.tenant ?? 'team-a';
  const tool = o.tool ?? 'es_orders_search';
  const status = o.status ?? CallStatus.OK;
  const e = envelope(
    EventTypes.callCompleted,
    tenant,
    {
      case: 'callCompleted',
      value: {
        callId: o.callId ?? crypto.randomUUID(),
        sessionId: o.sessionId ?? 's-1',
        principal: { tenant, agent: o.agent ?? 'support_bot', user: 'u-7', environment: 'prod' },
        tool,
        toolVersion: 'v-hash-1',
        resource: 'es_orders',
        resourceVersion: 3,
        arguments: o.arguments ?? {
          filters: [{ field: 'status', op: 'eq', value: 'open' }],
          limit: 10,
        },
        decision: DecisionEffect.ALLOW,
        policyIds: ['support-read-orders'],
        idempotencyKey: '',
        status,
        ...(o.errorCode
          ? {
              error: {
                code: o.errorCode,
                category: ErrorCategory.FIX_ARGUMENTS,
                message: 'filters[0].value: expected a string',
              },
            }
          : {}),
        meta: {
          resource: 'es_orders',
          resourceVersion: 3,
          tool,
          latencyMs: o.latencyMs ?? 12,
          upstreamStatus: 200,
          returned: 10,
          total: 340,
          truncated: o.truncated ?? false,
          bytes: 2048,
          traceId: '0af7651916cd43dd8448eb211c80319c',
        },
      },
    },
    o.eventId,
  );
  if (o.occurredAt) e.occurredAt = timestampFromDate(o.occurredAt);
  return e;
}

/** A write-ahead `call.started`; its completion is due by `deadline`. */
export function callStarted(o: {
  tenant?: string;
  callId: string;
  sessionId?: string;
  tool?: string;
  deadline: Date;
}): EventEnvelope {
  const tenant = o.tenant ?? 'team-a';
  return envelope(EventTypes.callStarted, tenant, {
    case: 'callStarted',
    value: {
      callId: o.callId,
      sessionId: o.sessionId ?? 's-1',
      principal: { tenant, agent: 'support_bot', user: 'u-7', environment: 'prod' },
      tool: o.tool ?? 'es_orders_search',
      toolVersion: 'v-hash-1',
      resource: 'es_orders',
      resourceVersion: 3,
      arguments: { filters: [{ field: 'status', op: 'eq', value: 'open' }] },
      decision: DecisionEffect.ALLOW,
      policyIds: ['support-read-orders'],
      startedAt: timestampFromDate(new Date(o.deadline.getTime() - 30_000)),
      deadline: timestampFromDate(o.deadline),
    },
  });
}

export function callDenied(
  o: { tenant?: string; sessionId?: string; callId?: string } = {},
): EventEnvelope {
  const tenant = o.tenant ?? 'team-a';
  return envelope(EventTypes.callDenied, tenant, {
    case: 'callDenied',
    value: {
      callId: o.callId ?? crypto.randomUUID(),
      sessionId: o.sessionId ?? 's-1',
      principal: { tenant, agent: 'support_bot', environment: 'prod' },
      tool: 'es_orders_write',
      resource: 'es_orders',
      resourceVersion: 3,
      arguments: { id: 'o-1', status: 'refunded' },
      decision: {
        effect: DecisionEffect.DENY,
        policyIds: ['deny-writes'],
        reason: 'writes need the order_ops role',
      },
      error: { code: ErrorCode.POLICY_DENIED, category: ErrorCategory.DENIED, message: 'denied' },
    },
  });
}

export function toolsListed(o: { tenant?: string; sessionId?: string } = {}): EventEnvelope {
  const tenant = o.tenant ?? 'team-a';
  return envelope(EventTypes.toolsListed, tenant, {
    case: 'toolsListed',
    value: {
      sessionId: o.sessionId ?? 's-1',
      principal: { tenant, agent: 'support_bot', environment: 'prod' },
      tools: [
        {
          name: 'es_orders_search',
          version: 'v-hash-1',
          resource: 'es_orders',
          resourceVersion: 3,
        },
        { name: 'es_orders_get', version: 'v-hash-2', resource: 'es_orders', resourceVersion: 3 },
      ],
      task: 'find open orders',
    },
  });
}

export function approvalEvent(
  type: typeof EventTypes.approvalRequested | typeof EventTypes.approvalDecided,
  o: { tenant?: string; sessionId?: string; callId?: string; status?: ApprovalStatus } = {},
): EventEnvelope {
  const tenant = o.tenant ?? 'team-a';
  const approval = {
    id: 'ap-1',
    status: o.status ?? ApprovalStatus.PENDING,
    principal: { tenant, agent: 'support_bot', environment: 'prod' },
    resource: 'es_orders',
    resourceVersion: 3,
    tool: 'es_orders_write',
    callId: o.callId ?? 'c-write',
    sessionId: o.sessionId ?? 's-1',
    policyIds: ['writes-need-approval'],
    decidedBy: type === EventTypes.approvalDecided ? 'alice' : '',
    reason: type === EventTypes.approvalDecided ? 'customer confirmed' : '',
    arguments: { id: 'o-1', status: 'refunded' },
  };
  return type === EventTypes.approvalRequested
    ? envelope(type, tenant, { case: 'approvalRequested', value: { approval } })
    : envelope(type, tenant, { case: 'approvalDecided', value: { approval } });
}

/** The NATS subject and bytes of an event, as the stream holds them. */
export function onStream(event: EventEnvelope): { subject: string; data: Uint8Array } {
  return {
    subject: /^[A-Za-z0-9_-]*$/.test(event.tenant)
      ? subjects.event(event.type as EventType, event.tenant)
      : `tollgate.v1.evt.${event.type}._`,
    data: toBinary(EventEnvelopeSchema, event),
  };
}

/** A copy of an event with fields changed (e.g. an unknown schema version). */
export function tweak(event: EventEnvelope, change: Partial<EventEnvelope>): EventEnvelope {
  return create(EventEnvelopeSchema, { ...event, ...change });
}
