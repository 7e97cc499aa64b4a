import { ApprovalStatus } from '@tollgate/contracts/policy/v1';
import type { Approval } from '@tollgate/contracts/policy/v1';
import { TollgateError } from '@tollgate/core';
import type { Operation, Principal, PublishedResource, ToolDefinition } from '@tollgate/core';
import { approvalBindingHash } from '@tollgate/policy';
import type { PolicyDecision } from '@tollgate/policy';
import type { SavedQueryUse } from '../call-trail.js';
import type { ParkedCall } from '../state/parked-calls.js';

/** What parking a call needs: the call as validated and decided. */
export interface ParkInput {
  callId: string;
  sessionId: string;
  principal: Principal;
  resource: PublishedResource;
  tool: ToolDefinition;
  operation: Operation;
  args: Record<string, unknown>;
  decision: PolicyDecision;
  idempotencyKey: string;
  budgetMs: number;
  now: number;
  ttlMs: number;
  traceId: string;
  /** The saved query the call came through, reported again when it resumes. */
  savedQuery?: SavedQueryUse;
}

/** The approval binding of a call: principal, resource version, tool and canonical arguments. */
export function bindingOf(call: {
  principal: ParkedCall['principal'];
  resource: { name: string; version: number };
  tool: { name: string };
  args: unknown;
}): string {
  return approvalBindingHash({
    principal: {
      tenant: call.principal.tenant,
      agent: call.principal.agent,
      environment: call.principal.environment,
      ...(call.principal.user !== undefined ? { user: call.principal.user } : {}),
    },
    resourceName: call.resource.name,
    resourceVersion: call.resource.version,
    tool: call.tool.name,
    args: call.args,
  });
}

/** The record a `require_approval` call is parked as, under a fresh approval id. */
export function parkedCallOf(input: ParkInput): ParkedCall {
  const { principal, resource, tool } = input;
  const call = {
    principal: {
      tenant: principal.tenant,
      agent: principal.agent,
      environment: principal.environment,
      ...(principal.user !== undefined ? { user: principal.user } : {}),
      ...(principal.tokenId !== undefined ? { tokenId: principal.tokenId } : {}),
    },
    resource: {
      name: resource.name,
      version: resource.version,
      kind: resource.descriptor.spec.type,
    },
    tool: { name: tool.name, version: tool.version },
    args: input.args,
  };
  return {
    ...call,
    callId: input.callId,
    approvalId: crypto.randomUUID(),
    sessionId: input.sessionId,
    operation: input.operation,
    operationClass: tool.class,
    bindingHash: bindingOf(call),
    idempotencyKey: input.idempotencyKey,
    policyIds: [...input.decision.policyIds],
    requestedAt: input.now,
    expiresAt: input.now + input.ttlMs,
    budgetMs: input.budgetMs,
    traceId: input.traceId,
    ...(input.savedQuery ? { savedQuery: { ...input.savedQuery } } : {}),
  };
}

/**
 * Why a decided approval may not run its parked call, if it may not: rejected or expired
 * decisions, a decision for another approval, tenant or set of arguments (the binding hash
 * must match what was parked and what the parked call still hashes to).
 */
export function approvalObstacle(
  parked: ParkedCall,
  approval: Approval,
  now: number,
): TollgateError | undefined {
  if (approval.id !== parked.approvalId || approval.principal?.tenant !== parked.principal.tenant) {
    return new TollgateError('APPROVAL_REJECTED', 'The decision does not belong to this call.');
  }
  if (approval.status === ApprovalStatus.REJECTED) {
    const why = approval.reason.trim().slice(0, 200);
    return new TollgateError(
      'APPROVAL_REJECTED',
      `A person rejected this call${why === '' ? '' : `: ${why}`}. Do not repeat it unchanged.`,
    );
  }
  if (approval.status === ApprovalStatus.EXPIRED || parked.expiresAt <= now) {
    return new TollgateError(
      'APPROVAL_EXPIRED',
      'Nobody decided on this call in time; it was not run.',
    );
  }
  if (approval.status !== ApprovalStatus.APPROVED) {
    return new TollgateError('APPROVAL_REJECTED', 'The decision on this call is not an approval.');
  }
  if (approval.argumentsHash !== parked.bindingHash || bindingOf(parked) !== parked.bindingHash) {
    return new TollgateError(
      'APPROVAL_REJECTED',
      'The approval does not match the parked call (principal, resource version, tool or arguments differ); it was not run.',
    );
  }
  return undefined;
}

/** The current resource a resumed call runs against: the very version that was approved. */
export function approvedResource(
  parked: ParkedCall,
  current: PublishedResource | undefined,
): PublishedResource {
  if (current === undefined || current.descriptor.spec.type !== parked.resource.kind) {
    throw new TollgateError(
      'NOT_FOUND',
      `${parked.resource.name} is no longer available; the call was not run.`,
    );
  }
  if (current.version !== parked.resource.version) {
    throw new TollgateError(
      'VERSION_CONFLICT',
      `${parked.resource.name} changed after the call was approved (v${parked.resource.version} → v${current.version}); call again to ask for a new approval.`,
    );
  }
  return current;
}
