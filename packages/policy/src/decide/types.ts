import type { Context, EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import type { Operation, PermissionSet } from '@tollgate/core';
import type { PolicyEffect, PolicyKind } from '../bundle/types.js';

/** Who is calling, as the executor authenticated it (from a signed token, never the payload). */
export interface Principal {
  tenant: string;
  agent: string;
  /** The environment the call is made in; required — a call without one is denied. */
  environment?: string;
  /** The human the agent acts for, if any. */
  user?: string;
  /**
   * Ignored: the decider uses the roles of the bundle's Agent entity, never roles a caller
   * claims. Accepted so a token's claims can be passed through as they are.
   */
  roles?: readonly string[];
}

/** Call-time facts that are not part of the principal. */
export interface CallContext {
  /** Caller address (IPv4, IPv6, or IPv4-mapped IPv6). Unknown → IP-restricted grants do not allow. */
  sourceIp?: string;
  /** Decision time; defaults to the decider's clock. */
  now?: Date | number;
  /** The `limit` the call asks for. */
  limit?: number;
}

export type DecisionOutcome = 'allow' | 'deny' | 'require_approval';

/**
 * The answer for one call. `reason` is safe to show the agent: it names the kind of rule that
 * decided ("resource is read-only", "denied by an IP restriction"), never a policy's text.
 */
export interface PolicyDecision {
  decision: DecisionOutcome;
  /** Policies that determined the outcome (empty when nothing matched). */
  policyIds: string[];
  reason: string;
  /** Set on deny: POLICY_UNAVAILABLE when no usable bundle or evaluation failed, else POLICY_DENIED. */
  errorCode?: 'POLICY_DENIED' | 'POLICY_UNAVAILABLE';
  /** Bundle version that decided, when one was loaded. */
  bundleVersion?: number;
}

/**
 * A permission set as the policy engine computes it. Operations whose only permits carry
 * call-time conditions (IP, time window) are offered and listed in `conditionalOperations`:
 * the tool exists, each call is decided on its own. Operations that may need a human approval
 * are offered and listed in `approvalOperations`.
 */
export interface OfferedPermissions extends PermissionSet {
  conditionalOperations: Operation[];
  approvalOperations: Operation[];
  /** Why nothing is offered when the decider could not evaluate (no or corrupt bundle, engine failure). */
  unavailable?: string;
}

/** One policy as a trace reports it. */
export interface TracedPolicy {
  id: string;
  effect: PolicyEffect;
  kind: PolicyKind;
  source: string;
  /** Whether its scope and conditions hold for this request, evaluated alone; `error` if evaluation failed. */
  matched: boolean | 'error';
  determining: boolean;
  error?: string;
}

/** The operator view of a decision: everything that went into it. */
export interface DecisionTrace {
  decision: PolicyDecision;
  bundle?: { tenant: string; version: number; hash: string };
  request: {
    principal: Principal;
    /** Roles from the bundle's Agent entity. */
    roles?: string[];
    action: string;
    resource: string;
    resourceVersion?: number;
  };
  /** Exactly what Cedar was given. */
  context?: Context;
  entities?: EntityJson[];
  /** Every policy of the resource's set. */
  policies: TracedPolicy[];
  /** Cedar text of the determining policies. */
  determining: { id: string; cedar: string }[];
  errors: string[];
}

/** A rate limit that applies to a principal × tool, with the key its shared counter lives under. */
export interface ApplicableRateLimit {
  policyId: string;
  requests: number;
  perSeconds: number;
  /** NATS-KV-safe key: one counter per tenant × agent × tool × granting policy. */
  counterKey: string;
}
