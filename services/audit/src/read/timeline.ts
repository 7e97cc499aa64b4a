import { create, toJson } from '@bufbuild/protobuf';
import { SessionStepSchema } from '@tollgate/contracts/audit/v1';
import type { SessionStep } from '@tollgate/contracts/audit/v1';
import { CallStatus } from '@tollgate/contracts/call/v1';
import type { CallMeta } from '@tollgate/contracts/call/v1';
import { timestampMs } from '@bufbuild/protobuf/wkt';
import { MemoryItemKind } from '@tollgate/contracts/events/v1';
import type {
  CallCompleted,
  CallStarted,
  EventEnvelope,
  SavedQueryUse,
} from '@tollgate/contracts/events/v1';
import { ApprovalStatus, DecisionEffect } from '@tollgate/contracts/policy/v1';
import { enumName, errorCodeName } from '../ingest/draft.js';
import type { AuditDocument } from '../record.js';
import { toolName } from '@tollgate/core';

/** Fields of a step, as the parts of it are assembled. */
type StepInit = Partial<Omit<SessionStep, '$typeName' | '$unknown'>>;

/**
 * Whether a `call.started` record has its pair: `answered` (a completion or denial of the same
 * call is recorded), `running` (none yet, its deadline not passed) or `unknown` (none by its
 * deadline: the executor stopped mid-way and the outcome was never recorded).
 */
export type StartPairing = 'answered' | 'running' | 'unknown';

/** The pairing of a `call.started` event, given whether its call has an outcome record. */
export function startPairing(event: EventEnvelope, answered: boolean, now: number): StartPairing {
  if (answered) return 'answered';
  const deadline = event.payload.case === 'callStarted' ? event.payload.value.deadline : undefined;
  return deadline !== undefined && timestampMs(deadline) < now ? 'unknown' : 'running';
}

/**
 * One timeline step per record: who was offered which tools, what each call asked, what policy
 * decided, what an approver said and what came back — with a one-line summary in words. A
 * `call.started` step says whether its call's outcome is recorded (`pairing`).
 */
export function sessionStep(
  doc: AuditDocument,
  event: EventEnvelope,
  pairing: StartPairing = 'answered',
): SessionStep {
  const base: StepInit = {
    sequence: BigInt(doc.seq),
    ...(event.occurredAt ? { occurredAt: event.occurredAt } : {}),
    type: event.type,
    callId: doc.call_id,
    agent: doc.agent,
    user: doc.user,
    traceId: event.traceId,
    hash: doc.hash,
  };
  return create(SessionStepSchema, { ...base, ...details(event, pairing) });
}

/** A step as one line of JSON Lines (no trailing newline). */
export function stepLine(step: SessionStep): string {
  return JSON.stringify(toJson(SessionStepSchema, step));
}

const STARTED_SUFFIX: Record<StartPairing, string> = {
  answered: '',
  running: ' (no outcome recorded yet)',
  unknown:
    ' -> outcome unknown: no completion was recorded by its deadline (its executor stopped mid-way)',
};

function details(event: EventEnvelope, pairing: StartPairing): StepInit {
  const p = event.payload;
  switch (p.case) {
    case 'callStarted': {
      const c = p.value;
      return {
        ...callStep(c),
        summary: `${toolInWords(c.tool, c.savedQuery) || 'call'} started${STARTED_SUFFIX[pairing]}`,
      };
    }
    case 'toolsListed': {
      const tools = p.value.tools;
      const names = tools.map((t) => `${t.name}@${t.version.slice(0, 12)}`).join(', ');
      return {
        offeredTools: tools,
        summary: `offered ${tools.length} tool${tools.length === 1 ? '' : 's'}${names ? `: ${names}` : ''}${p.value.task ? ` for task ${JSON.stringify(p.value.task)}` : ''}`,
      };
    }
    case 'callCompleted': {
      const c = p.value;
      return {
        ...callStep(c),
        status: c.status,
        ...(c.error ? { error: c.error } : {}),
        ...(c.meta ? { meta: c.meta } : {}),
        summary: completedSummary(
          toolInWords(c.tool, c.savedQuery),
          c.status,
          c.meta,
          c.error?.code,
          c.error?.message,
          c.approvalId,
        ),
      };
    }
    case 'callDenied': {
      const c = p.value;
      const code = c.error ? errorCodeName(c.error.code) : 'DENIED';
      const why = c.decision?.reason || c.error?.message || '';
      return {
        tool: c.tool,
        resource: c.resource,
        resourceVersion: c.resourceVersion,
        ...(c.arguments ? { arguments: c.arguments } : {}),
        decision: c.decision?.effect ?? DecisionEffect.DENY,
        policyIds: c.decision?.policyIds ?? [],
        reason: why,
        ...(c.error ? { error: c.error } : {}),
        summary: `${toolInWords(c.tool, c.savedQuery) || 'call'} denied (${code})${why ? `: ${why}` : ''}`,
      };
    }
    case 'approvalRequested':
    case 'approvalDecided': {
      const a = p.value.approval;
      const status = a?.status ?? ApprovalStatus.UNSPECIFIED;
      const requested = p.case === 'approvalRequested';
      const policies = a?.policyIds.length ? ` by policies ${a.policyIds.join(', ')}` : '';
      const by = a?.decidedBy ? ` by ${a.decidedBy}` : '';
      return {
        tool: a?.tool ?? '',
        resource: a?.resource ?? '',
        resourceVersion: a?.resourceVersion ?? 0,
        ...(a?.arguments ? { arguments: a.arguments } : {}),
        policyIds: a?.policyIds ?? [],
        approvalId: a?.id ?? '',
        approvalStatus: status,
        decidedBy: a?.decidedBy ?? '',
        reason: a?.reason ?? '',
        summary: requested
          ? `approval ${a?.id ?? ''} requested for ${a?.tool ?? 'a call'}${policies}`
          : `approval ${a?.id ?? ''} ${enumName(ApprovalStatus, status) || 'decided'}${by}${a?.reason ? `: ${a.reason}` : ''}`,
      };
    }
    case 'memoryWritten':
      return {
        summary: `memory ${enumName(MemoryItemKind, p.value.kind) || 'item'} ${p.value.id} written`,
      };
    case 'resourceChanged':
      return {
        resource: p.value.name,
        resourceVersion: p.value.version,
        summary: `resource ${p.value.name} is now version ${p.value.version}`,
      };
    case 'policyChanged':
      return { summary: `policy ${p.value.name} changed (version ${p.value.version})` };
    case 'toolWithdrawn':
      return {
        resource: p.value.resource,
        resourceVersion: p.value.resourceVersion,
        summary: `tool ${toolName(p.value.resource, p.value.operation)} withdrawn: its ${p.value.changes.map((c) => c.part).join(', ') || 'definition'} changed since it was pinned`,
      };
    default:
      return { summary: event.type };
  }
}

/** The parts of a step `call.started` and `call.completed` share. */
function callStep(c: CallStarted | CallCompleted): StepInit {
  return {
    tool: c.tool,
    toolVersion: c.toolVersion,
    resource: c.resource,
    resourceVersion: c.resourceVersion,
    ...(c.arguments ? { arguments: c.arguments } : {}),
    decision: c.decision,
    policyIds: c.policyIds,
    approvalId: c.approvalId,
    idempotencyKey: c.idempotencyKey,
  };
}

/** The tool a call named, and the saved query it went through when it did. */
function toolInWords(tool: string, savedQuery: SavedQueryUse | undefined): string {
  if (savedQuery === undefined) return tool;
  return `${tool} via saved query ${savedQuery.name} (revision ${savedQuery.revision})`;
}

function completedSummary(
  tool: string,
  status: CallStatus,
  meta: CallMeta | undefined,
  code: number | undefined,
  message: string | undefined,
  approvalId: string,
): string {
  const name = tool || 'call';
  const latency = meta ? `, ${meta.latencyMs} ms` : '';
  switch (status) {
    case CallStatus.OK: {
      const total = meta?.total === undefined ? '' : ` of ${meta.total}`;
      const cut = meta?.truncated ? ' (truncated)' : '';
      return `${name} -> ok: ${meta?.returned ?? 0}${total} returned${cut}${latency}`;
    }
    case CallStatus.ERROR:
      return `${name} -> error ${code ? errorCodeName(code) : ''}${message ? `: ${message}` : ''}${latency}`;
    case CallStatus.PENDING_APPROVAL:
      return `${name} -> waiting for approval ${approvalId}`;
    case CallStatus.ACCEPTED:
      return `${name} -> accepted${latency}`;
    default:
      return `${name} -> ${enumName(CallStatus, status) || 'unknown outcome'}`;
  }
}
