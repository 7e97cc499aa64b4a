/**
 * Stored forms of approvals and decisions. Documents are checked field by field when read
 * back: a malformed one is an internal error naming the document and field, never served.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import type { Stored } from './versioned.js';
import type {
  ApprovalDecision,
  ApprovalOutcome,
  ApprovalRecord,
  ApprovalState,
} from '../approvals/record.js';

const STATES: readonly ApprovalState[] = ['pending', 'approved', 'rejected', 'expired'];

export function toApprovalDocument(record: ApprovalRecord): Stored {
  const { id, decision, arguments: args, ...rest } = record;
  return {
    _id: id,
    ...rest,
    // JSON text: argument keys may contain dots or start with `$`.
    arguments: JSON.stringify(args),
    decidedBy: decision?.decidedBy ?? '',
    reason: decision?.reason ?? '',
    decidedAt: decision?.decidedAt ?? null,
  };
}

type Reader = ReturnType<typeof reader>;

function reader(kind: string, doc: unknown) {
  const d = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
  const id = typeof d._id === 'string' ? d._id : '(no id)';
  const bad = (field: string, expected: string): Error =>
    new Error(`stored ${kind} ${id} is malformed: ${field} is not ${expected}`);
  return {
    d,
    id,
    bad,
    text(field: string, from: Record<string, unknown> = d, allowEmpty = true): string {
      const value = from[field];
      if (typeof value !== 'string' || (!allowEmpty && value === ''))
        throw bad(field, allowEmpty ? 'a string' : 'a non-empty string');
      return value;
    },
    date(field: string): Date {
      const value = d[field];
      if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw bad(field, 'a date');
      return value;
    },
    strings(field: string, from: Record<string, unknown> = d): string[] {
      const value = from[field];
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
        throw bad(field, 'a list of strings');
      return value as string[];
    },
  };
}

function state(r: Reader, field: string): ApprovalState {
  const value = r.d[field] as ApprovalState;
  if (!STATES.includes(value)) throw r.bad(field, `one of ${STATES.join(', ')}`);
  return value;
}

export function readApprovalDocument(doc: unknown): ApprovalRecord {
  const r = reader('approval', doc);
  const p = r.d.principal;
  if (typeof p !== 'object' || p === null) throw r.bad('principal', 'an object');
  const principal = p as Record<string, unknown>;
  let args: unknown;
  try {
    args = JSON.parse(r.text('arguments'));
  } catch {
    throw r.bad('arguments', 'JSON');
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    throw r.bad('arguments', 'a JSON object');
  const version = r.d.resourceVersion;
  if (!Number.isSafeInteger(version) || (version as number) < 1)
    throw r.bad('resourceVersion', 'a positive integer');
  const status = state(r, 'status');
  const record: ApprovalRecord = {
    id: r.id,
    tenant: r.text('tenant', r.d, false),
    status,
    principal: {
      tenant: r.text('tenant', principal, false),
      agent: r.text('agent', principal, false),
      environment: r.text('environment', principal),
      user: r.text('user', principal),
      roles: r.strings('roles', principal),
      tokenId: r.text('tokenId', principal),
    },
    resource: r.text('resource', r.d, false),
    resourceVersion: version as number,
    tool: r.text('tool', r.d, false),
    argumentsHash: r.text('argumentsHash', r.d, false),
    callId: r.text('callId', r.d, false),
    sessionId: r.text('sessionId'),
    arguments: args as JsonObject,
    policyIds: r.strings('policyIds'),
    requestedAt: r.date('requestedAt'),
    expiresAt: r.date('expiresAt'),
  };
  if (status !== 'pending') {
    record.decision = {
      status,
      decidedBy: r.text('decidedBy'),
      reason: r.text('reason'),
      decidedAt: r.date('decidedAt'),
    };
  }
  return record;
}

export function readDecisionDocument(doc: unknown): { id: string; decision: ApprovalDecision } {
  const r = reader('approval decision', doc);
  const status = state(r, 'status');
  if (status === 'pending') throw r.bad('status', 'a final state');
  return {
    id: r.id,
    decision: {
      status: status as ApprovalOutcome,
      decidedBy: r.text('decidedBy'),
      reason: r.text('reason'),
      decidedAt: r.date('decidedAt'),
    },
  };
}
