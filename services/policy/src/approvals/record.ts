import type { JsonObject } from '@bufbuild/protobuf';

/** Where an approval is in its life. Only `pending` can change, and only once. */
export type ApprovalState = 'pending' | 'approved' | 'rejected' | 'expired';

/** The final states. */
export type ApprovalOutcome = Exclude<ApprovalState, 'pending'>;

/** The principal that made the parked call, as the executor authenticated it. */
export interface RequesterPrincipal {
  tenant: string;
  agent: string;
  environment: string;
  /** Empty when the agent acts for no user. */
  user: string;
  roles: string[];
  tokenId: string;
}

/** How an approval was settled. */
export interface ApprovalDecision {
  status: ApprovalOutcome;
  /** `agent` or `agent/user` of the approver; empty for an expiry. */
  decidedBy: string;
  reason: string;
  decidedAt: Date;
}

/**
 * A parked call waiting for a person, as recorded from `approval.requested`. The binding hash
 * (`argumentsHash`, from `approvalBindingHash`) ties it to principal, resource version, tool and
 * canonical arguments: the executor resumes the call only if the parked call still hashes to it.
 */
export interface ApprovalRecord {
  id: string;
  tenant: string;
  status: ApprovalState;
  principal: RequesterPrincipal;
  resource: string;
  resourceVersion: number;
  tool: string;
  argumentsHash: string;
  callId: string;
  sessionId: string;
  /** Redacted, for the approver to read. */
  arguments: JsonObject;
  policyIds: string[];
  requestedAt: Date;
  expiresAt: Date;
  /** Present once decided. */
  decision?: ApprovalDecision;
}

/** Formats an approver as recorded in `decidedBy`. */
export function approverName(principal: { agent: string; user?: string | undefined }): string {
  return principal.user ? `${principal.agent}/${principal.user}` : principal.agent;
}

/** The approval with `decision` applied. */
export function decided(record: ApprovalRecord, decision: ApprovalDecision): ApprovalRecord {
  return { ...record, status: decision.status, decision };
}
