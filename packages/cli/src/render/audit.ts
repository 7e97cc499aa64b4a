/** Audit records and session steps as one-line summaries for people. Pure. */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import type { AuditRecord, SessionStep } from '@tollgate/contracts/audit/v1';
import { CallStatus } from '@tollgate/contracts/call/v1';
import type { Principal } from '@tollgate/contracts/common/v1';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { ApprovalStatus, DecisionEffect } from '@tollgate/contracts/policy/v1';
import type { Style } from '../output/style.js';
import { renderTable } from '../output/table.js';
import { toolName } from '@tollgate/core';

/** One record, the way a person scans a log. */
export interface RecordLine {
  sequence: string;
  time: string;
  type: string;
  who: string;
  what: string;
  outcome: string;
  traceId: string;
}

export function recordLine(record: AuditRecord): RecordLine {
  const event = record.event;
  const base = {
    sequence: record.sequence.toString(),
    time: time(event?.occurredAt ?? record.recordedAt),
    type: event?.type ?? '',
    traceId: event?.traceId ?? '',
  };
  const payload = event?.payload;
  switch (payload?.case) {
    case 'callCompleted': {
      const v = payload.value;
      return {
        ...base,
        who: who(v.principal),
        what: `${v.tool}${v.resourceVersion ? ` (${v.resource}@v${v.resourceVersion})` : ''}`,
        outcome: callOutcome(v.status, v.error?.code, v.meta?.returned),
      };
    }
    case 'callStarted': {
      const v = payload.value;
      return {
        ...base,
        who: who(v.principal),
        what: `${v.tool}${v.resourceVersion ? ` (${v.resource}@v${v.resourceVersion})` : ''}`,
        outcome: 'started',
      };
    }
    case 'callDenied': {
      const v = payload.value;
      return {
        ...base,
        who: who(v.principal),
        what: v.tool,
        outcome:
          `denied ${v.error ? errorName(v.error.code) : ''} ${v.decision?.reason ?? ''}`.trim(),
      };
    }
    case 'approvalRequested':
    case 'approvalDecided': {
      const a = payload.value.approval;
      return {
        ...base,
        who: payload.case === 'approvalDecided' ? a?.decidedBy || '-' : who(a?.principal),
        what: `${a?.tool ?? ''} approval ${a?.id ?? ''}`,
        outcome: (ApprovalStatus[a?.status ?? 0] ?? '').toLowerCase(),
      };
    }
    case 'toolsListed': {
      const v = payload.value;
      return {
        ...base,
        who: who(v.principal),
        what: `offered ${v.tools.map((t) => t.name).join(', ') || 'no tools'}`,
        outcome: v.task ? `task: ${v.task}` : '',
      };
    }
    case 'resourceChanged': {
      const v = payload.value;
      return { ...base, who: v.changedBy, what: `resource ${v.name} v${v.version}`, outcome: '' };
    }
    case 'policyChanged': {
      const v = payload.value;
      return {
        ...base,
        who: v.changedBy,
        what: `${v.subject === 2 ? 'agent' : 'policy'} ${v.name} v${v.version}`,
        outcome: v.deleted ? 'deleted' : '',
      };
    }
    case 'memoryWritten': {
      const v = payload.value;
      return { ...base, who: v.writtenBy, what: `memory ${v.id}`, outcome: '' };
    }
    case 'toolWithdrawn': {
      const v = payload.value;
      return {
        ...base,
        who: '',
        what: `tool ${toolName(v.resource, v.operation)} withdrawn`,
        outcome: `changed: ${v.changes.map((c) => c.part).join(', ')}`,
      };
    }
    default:
      return { ...base, who: '', what: '', outcome: '' };
  }
}

export function renderRecords(records: readonly AuditRecord[], style: Style): string {
  return renderTable(
    [
      { header: 'SEQ', cell: (r: RecordLine) => r.sequence, right: true },
      { header: 'TIME', cell: (r) => r.time },
      { header: 'TYPE', cell: (r) => r.type },
      { header: 'WHO', cell: (r) => r.who, max: 30 },
      { header: 'WHAT', cell: (r) => r.what, max: 50 },
      { header: 'OUTCOME', cell: (r) => r.outcome, max: 40 },
      { header: 'TRACE', cell: (r) => r.traceId, max: 32 },
    ],
    records.map(recordLine),
    style,
  );
}

export function renderSteps(steps: readonly SessionStep[], style: Style): string {
  return renderTable(
    [
      { header: 'SEQ', cell: (s: SessionStep) => s.sequence.toString(), right: true },
      { header: 'TIME', cell: (s) => time(s.occurredAt) },
      { header: 'TYPE', cell: (s) => s.type },
      { header: 'SUMMARY', cell: (s) => s.summary, max: 90 },
      { header: 'TRACE', cell: (s) => s.traceId, max: 32 },
    ],
    steps,
    style,
  );
}

function callOutcome(
  status: CallStatus,
  code: ErrorCode | undefined,
  returned: number | undefined,
): string {
  switch (status) {
    case CallStatus.OK:
      return `ok${returned !== undefined ? `, ${returned} returned` : ''}`;
    case CallStatus.ERROR:
      return `error ${code !== undefined ? errorName(code) : ''}`.trim();
    case CallStatus.PENDING_APPROVAL:
      return 'pending approval';
    case CallStatus.ACCEPTED:
      return 'accepted';
    default:
      return '';
  }
}

export function errorName(code: ErrorCode): string {
  return ErrorCode[code] ?? String(code);
}

export function decisionName(effect: DecisionEffect): string {
  return (DecisionEffect[effect] ?? '').toLowerCase();
}

function who(p: Principal | undefined): string {
  if (p === undefined) return '-';
  return p.user ? `${p.agent} (${p.user})` : p.agent;
}

export function time(ts: Timestamp | undefined): string {
  return ts
    ? timestampDate(ts)
        .toISOString()
        .replace(/\.\d+Z$/, 'Z')
    : '-';
}
