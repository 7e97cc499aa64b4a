import { EventTypes } from '@tollgate/kit';

/** Event types whose records are calls. */
export const CALL_EVENT_TYPES: readonly string[] = [
  EventTypes.callCompleted,
  EventTypes.callDenied,
];

/** The facets of a call record its outcome is read from. */
export interface CallFacts {
  type: string;
  status: string;
  decision: string;
  error_code: string;
  latency_ms: number;
  truncated: boolean;
}

/** What one call record contributes to statistics. */
export interface CallOutcome {
  ok: boolean;
  error: boolean;
  denied: boolean;
  pendingApproval: boolean;
  argumentFailure: boolean;
  idempotencyConflict: boolean;
  truncated: boolean;
  /** Latency of a completed call; undefined for a refused one. */
  latencyMs: number | undefined;
}

/** Classifies a `call.completed` or `call.denied` record (the same rules feed the metrics). */
export function callOutcome(row: CallFacts): CallOutcome {
  const completed = row.type === EventTypes.callCompleted;
  return {
    ok: completed && row.status === 'ok',
    error: completed && row.status === 'error',
    denied: row.type === EventTypes.callDenied || row.decision === 'deny',
    pendingApproval: completed && row.status === 'pending_approval',
    argumentFailure: row.error_code === 'ARGUMENTS_INVALID',
    idempotencyConflict: row.error_code === 'IDEMPOTENCY_CONFLICT',
    truncated: row.truncated,
    latencyMs: completed ? row.latency_ms : undefined,
  };
}
