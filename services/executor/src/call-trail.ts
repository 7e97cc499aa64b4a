import type { Operation, Principal, PublishedResource, ToolDefinition } from '@tollgate/core';
import { randomBytes } from 'node:crypto';
import { currentTraceId } from '@tollgate/kit';
import type { PolicyDecision } from '@tollgate/policy';

/** The pipeline stage a call reached; audit events and errors say where a call stopped. */
export type Stage =
  | 'authenticate'
  | 'resolve'
  | 'expand'
  | 'decide'
  | 'rate_limit'
  | 'validate'
  | 'approval'
  | 'idempotency'
  | 'egress'
  | 'credential'
  | 'compile'
  | 'execute'
  | 'shape'
  | 'reply';

/**
 * The saved query a `sq_<name>` call runs, by identity: enough for replies and events, and for
 * a parked call to report it after it resumes without looking the saved query up again.
 */
export interface SavedQueryUse {
  id: string;
  name: string;
  revision: number;
  contentHash: string;
  /** The tool the agent called, `sq_<name>`. */
  tool: string;
  /** That tool's version once the call was validated against it ('' before). */
  toolVersion: string;
  /** The tool it runs as, `<resource>_<operation>`. */
  baseTool: string;
}

/**
 * Whether a call may still answer `accepted`: `running` until its outcome is being recorded
 * (`finishing`), or `accepted` once the agent was told to wait for an event.
 */
export type CallPhase = 'running' | 'finishing' | 'accepted';

/**
 * What the executor has established about one call so far. Each stage adds what it learnt;
 * the reply meta and the audit event are built from it, so a call that stops anywhere is
 * still reported with everything known up to that point. Never holds a credential.
 */
export interface CallTrail {
  callId: string;
  sessionId: string;
  /** The tool name as the agent sent it. */
  requestedTool: string;
  /** Arguments as the agent sent them (redacted before they leave the executor). */
  arguments: Record<string, unknown>;
  idempotencyKey: string;
  /** Epoch ms the request arrived. */
  startedAt: number;
  /** Absolute deadline of the call, epoch ms. */
  deadline: number;
  /** Budget the call was given, ms (reused when a parked call resumes). */
  budgetMs: number;
  stage: Stage;
  phase: CallPhase;
  traceId: string;
  principal?: Principal;
  resource?: PublishedResource;
  /** Set once a `sq_<name>` tool was found among the principal's saved queries. */
  savedQuery?: SavedQueryUse;
  /** The base-tool arguments a saved-query call expanded to (before validation). */
  expanded?: Record<string, unknown>;
  operation?: Operation;
  decision?: PolicyDecision;
  /** The tool the call was validated against: the base tool of a saved-query call. */
  tool?: ToolDefinition;
  /** Validated arguments (nulls removed), once validation passed; preferred fields defaulted in. */
  args?: Record<string, unknown>;
  /** The preferred fields put in because the call named no `fields`. */
  defaultFields?: string[];
  approvalId?: string;
  /** HTTP status of the upstream's final answer, when there was one. */
  upstreamStatus?: number;
  /** Set when the call resumed from a parked approval or answered `accepted`: results are stored for polling. */
  pollable?: boolean;
  /** Completes once the `accepted` answer (event + stored result) is recorded. */
  acceptance?: Promise<unknown>;
  /**
   * The write-ahead `call.started`, published as the call heads for its upstream: resolves once
   * JetStream stored it, rejects when it could not (the call is then never answered with its
   * result). A rejection is always handled.
   */
  started?: Promise<void>;
  /** Milliseconds each stage took, span included (logged at debug with the answer). */
  timings: Partial<Record<Stage, number>>;
}

/** Call ids double as KV keys: UUIDs and similar tokens only. */
export const CALL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The deadline upstream work must meet: the budget less a reserve for recording and answering. */
export function deadlineOf(start: number, budgetMs: number): number {
  return start + budgetMs - Math.min(1_000, Math.floor(budgetMs / 10));
}

/**
 * The call's trace id: the active span's, else the caller's `traceparent`, else a fresh one, so
 * replies, events and logs can always be correlated even where no tracer runs.
 */
export function traceIdOf(traceparent: string | undefined): string {
  const active = currentTraceId();
  if (active !== '' && !/^0+$/.test(active)) return active;
  const fromHeader = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(
    traceparent ?? '',
  )?.[1];
  if (fromHeader !== undefined && !/^0+$/.test(fromHeader)) return fromHeader;
  return randomBytes(16).toString('hex');
}
