import { create } from '@bufbuild/protobuf';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import type { CallResult } from '@tollgate/contracts/call/v1';
import { PrincipalSchema } from '@tollgate/contracts/common/v1';
import type { Principal as ProtoPrincipal } from '@tollgate/contracts/common/v1';
import { SavedQueryUseSchema } from '@tollgate/contracts/events/v1';
import type {
  EventEnvelope,
  SavedQueryUse as SavedQueryUseProto,
} from '@tollgate/contracts/events/v1';
import {
  ApprovalSchema,
  ApprovalStatus,
  DecisionEffect,
  DecisionSchema,
} from '@tollgate/contracts/policy/v1';
import type { Approval } from '@tollgate/contracts/policy/v1';
import { redactValue, redactionMethod } from '@tollgate/core';
import type { Principal, RedactionMethod } from '@tollgate/core';
import { EventTypes, envelope } from '@tollgate/kit';
import type { PolicyDecision } from '@tollgate/policy';
import type { CallTrail } from '../call-trail.js';

/** Limits on the arguments an event records: enough to audit, never a vehicle for bulk data. */
const MAX_STRING = 256;
const MAX_ITEMS = 50;
const MAX_DEPTH = 6;
const MAX_ARGUMENT_BYTES = 8_192;
const MASK = '***';

/**
 * `call.completed` for a call that got past authentication and resolution, whatever its outcome.
 * A saved-query call names its base tool and expanded arguments once expanded, and the saved
 * query in `saved_query`; preferred fields defaulted in are in the meta, not the arguments.
 */
export function completedEvent(trail: CallTrail, result: CallResult): EventEnvelope {
  return traced(
    trail,
    envelope(EventTypes.callCompleted, trail.principal?.tenant ?? '', {
      case: 'callCompleted',
      value: {
        ...callFacts(trail),
        status: result.status,
        ...(result.error ? { error: result.error } : {}),
        ...(result.meta ? { meta: result.meta } : {}),
      },
    }),
  );
}

/**
 * `call.started` for a decided, validated call about to reach its upstream: the write-ahead half
 * of its audit record, paired with its `call.completed` by call id.
 */
export function startedEvent(trail: CallTrail): EventEnvelope {
  return traced(
    trail,
    envelope(EventTypes.callStarted, trail.principal?.tenant ?? '', {
      case: 'callStarted',
      value: { ...callFacts(trail), deadline: timestampFromMs(trail.deadline) },
    }),
  );
}

/** `call.denied` for a call refused before it ran: authentication, resolution or policy. */
export function deniedEvent(trail: CallTrail, result: CallResult): EventEnvelope {
  return traced(
    trail,
    envelope(EventTypes.callDenied, trail.principal?.tenant ?? '', {
      case: 'callDenied',
      value: {
        callId: trail.callId,
        sessionId: trail.sessionId,
        ...(trail.principal ? { principal: principalProto(trail.principal) } : {}),
        tool: recordedTool(trail),
        resource: trail.resource?.name ?? '',
        resourceVersion: trail.resource?.version ?? 0,
        arguments: auditArguments(recordedArguments(trail), redactionOf(trail)),
        ...(trail.decision
          ? {
              decision: create(DecisionSchema, {
                effect: effectOf(trail.decision),
                policyIds: [...trail.decision.policyIds],
                reason: trail.decision.reason,
              }),
            }
          : {}),
        ...(result.error ? { error: result.error } : {}),
        ...savedQueryOf(trail),
      },
    }),
  );
}

/** What `call.started` and `call.completed` both say about a call. */
function callFacts(trail: CallTrail) {
  return {
    callId: trail.callId,
    sessionId: trail.sessionId,
    principal: principalProto(trail.principal),
    tool: recordedTool(trail),
    toolVersion: trail.tool?.version ?? '',
    resource: trail.resource?.name ?? '',
    resourceVersion: trail.resource?.version ?? 0,
    arguments: auditArguments(recordedArguments(trail), redactionOf(trail)),
    decision: effectOf(trail.decision),
    policyIds: [...(trail.decision?.policyIds ?? [])],
    approvalId: trail.approvalId ?? '',
    idempotencyKey: trail.idempotencyKey.slice(0, 256),
    startedAt: timestampFromMs(trail.startedAt),
    ...savedQueryOf(trail),
  };
}

/**
 * The tool an event names: the tool validated against, else — once a saved query expanded —
 * its base tool, else the tool as requested. `arguments` are always that tool's.
 */
function recordedTool(trail: CallTrail): string {
  if (trail.tool !== undefined) return trail.tool.name;
  if (trail.expanded !== undefined && trail.savedQuery !== undefined)
    return trail.savedQuery.baseTool;
  return trail.requestedTool.slice(0, 128);
}

/** The arguments of `recordedTool`: a saved query's expansion, else as the agent sent them. */
function recordedArguments(trail: CallTrail): Record<string, unknown> {
  return trail.expanded ?? trail.arguments;
}

function savedQueryOf(trail: CallTrail): { savedQuery?: SavedQueryUseProto } {
  const use = trail.savedQuery;
  if (use === undefined) return {};
  return {
    savedQuery: create(SavedQueryUseSchema, {
      id: use.id,
      name: use.name,
      revision: use.revision,
      contentHash: use.contentHash,
      tool: use.tool,
      toolVersion: use.toolVersion,
    }),
  };
}

/** The envelope carrying the call's trace id (the active span's is the same when one runs). */
function traced(trail: CallTrail, event: EventEnvelope): EventEnvelope {
  event.traceId = trail.traceId;
  return event;
}

/** The approval a parked call asks for, as `approval.requested` carries it. */
export function approvalRequest(
  trail: CallTrail,
  approval: { id: string; bindingHash: string; requestedAt: number; expiresAt: number },
): Approval {
  return create(ApprovalSchema, {
    id: approval.id,
    status: ApprovalStatus.PENDING,
    principal: principalProto(trail.principal),
    resource: trail.resource?.name ?? '',
    resourceVersion: trail.resource?.version ?? 0,
    tool: trail.tool?.name ?? '',
    argumentsHash: approval.bindingHash,
    requestedAt: timestampFromMs(approval.requestedAt),
    expiresAt: timestampFromMs(approval.expiresAt),
    callId: trail.callId,
    sessionId: trail.sessionId,
    arguments: auditArguments(trail.args ?? trail.arguments, redactionOf(trail)),
    policyIds: [...(trail.decision?.policyIds ?? [])],
  });
}

export function approvalRequestedEvent(trail: CallTrail, approval: Approval): EventEnvelope {
  return traced(
    trail,
    envelope(EventTypes.approvalRequested, trail.principal?.tenant ?? '', {
      case: 'approvalRequested',
      value: { approval },
    }),
  );
}

export function principalProto(principal: Principal | undefined): ProtoPrincipal {
  return create(PrincipalSchema, {
    tenant: principal?.tenant ?? '',
    agent: principal?.agent ?? '',
    user: principal?.user ?? '',
    environment: principal?.environment ?? '',
    tokenId: principal?.tokenId ?? '',
  });
}

function effectOf(decision: PolicyDecision | undefined): DecisionEffect {
  switch (decision?.decision) {
    case 'allow':
      return DecisionEffect.ALLOW;
    case 'deny':
      return DecisionEffect.DENY;
    case 'require_approval':
      return DecisionEffect.REQUIRE_APPROVAL;
    default:
      return DecisionEffect.UNSPECIFIED;
  }
}

/** The method of every redaction rule, for everyone: audit records never hold a redacted value. */
function redactionOf(trail: CallTrail): Record<string, RedactionMethod> {
  const rules = trail.resource?.descriptor.spec.access.redact ?? {};
  const out: Record<string, RedactionMethod> = {};
  for (const [field, rule] of Object.entries(rules)) out[field] = redactionMethod(rule);
  return out;
}

/**
 * Arguments as an audit record may hold them: values of redacted fields replaced (in filters
 * and in written documents), long strings, long arrays and deep nesting cut, and the whole
 * replaced by a note when it is still too large.
 */
export function auditArguments(
  args: Record<string, unknown>,
  redact: Record<string, RedactionMethod>,
): JsonObject {
  const bounded = bound(args, 0, redact, undefined, '') as JsonObject;
  const bytes = Buffer.byteLength(JSON.stringify(bounded), 'utf8');
  if (bytes <= MAX_ARGUMENT_BYTES) return bounded;
  return { _omitted: `arguments were ${bytes} bytes after capping; not recorded` };
}

function bound(
  value: unknown,
  depth: number,
  redact: Record<string, RedactionMethod>,
  rule: RedactionMethod | undefined,
  parentKey: string,
): JsonValue {
  if (rule !== undefined) {
    const redacted = redactValue(value, rule);
    return typeof redacted === 'symbol' ? MASK : bound(redacted, depth, {}, undefined, parentKey);
  }
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string')
    return value.length > MAX_STRING
      ? `${value.slice(0, MAX_STRING)}…(${value.length} chars)`
      : value;
  if (typeof value !== 'object') return String(value);
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) {
    const items = value
      .slice(0, MAX_ITEMS)
      .map((item) => bound(item, depth + 1, redact, undefined, parentKey));
    if (value.length > MAX_ITEMS) items.push(`…(${value.length - MAX_ITEMS} more)`);
    return items;
  }
  const record = value as Record<string, unknown>;
  const out: JsonObject = {};
  const keys = Object.keys(record);
  // A filter on a redacted field: its value is redacted like the field's results are.
  const filterRule =
    typeof record.field === 'string' && Object.hasOwn(redact, record.field)
      ? redact[record.field]
      : undefined;
  for (const key of keys.slice(0, MAX_ITEMS)) {
    const inner =
      key === 'value' && filterRule !== undefined
        ? filterRule
        : // A written record's field (under `document`, `values`, …): redacted like the field.
          depth === 1 && parentKey !== 'filters' && Object.hasOwn(redact, key)
          ? redact[key]
          : undefined;
    const item = bound(record[key], depth + 1, redact, inner, key);
    Object.defineProperty(out, key.slice(0, MAX_STRING), {
      value: item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (keys.length > MAX_ITEMS) out['_more_keys'] = keys.length - MAX_ITEMS;
  return out;
}
