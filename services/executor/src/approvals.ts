import { CallStatus } from '@tollgate/contracts/call/v1';
import { ApprovalStatus } from '@tollgate/contracts/policy/v1';
import type { Approval } from '@tollgate/contracts/policy/v1';
import { TollgateError } from '@tollgate/core';
import type { Principal, ToolValidatorCache } from '@tollgate/core';
import { inSpan } from '@tollgate/kit';
import type { Logger, ResourceCatalog } from '@tollgate/kit';
import { CALL_ID, deadlineOf, traceIdOf } from './call-trail.js';
import type { CallTrail } from './call-trail.js';
import { approvalObstacle, approvedResource } from './pipeline/approval.js';
import { decideCall, denialError } from './pipeline/decide.js';
import type { PolicyDeciders } from './state/deciders.js';
import { errorResult } from './pipeline/reply.js';
import { validateCall } from './pipeline/validate.js';
import type { CallRunner } from './runner.js';
import type { CallResults } from './state/call-results.js';
import type { ParkedCall, ParkedCalls } from './state/parked-calls.js';

/** What settling a decided approval needs. */
export interface SettleDeps {
  runner: CallRunner;
  parked: ParkedCalls;
  results: CallResults;
  resources: ResourceCatalog;
  deciders: PolicyDeciders;
  validators: ToolValidatorCache;
  logger: Logger;
  clock: () => number;
  settings: { maxCallTimeoutMs: number; staleMarginMs?: number };
}

/** How long past a call's deadline its vanished executor is given up on, by default. */
export const STALE_MARGIN_MS = 60_000;

/**
 * Settles one `approval.decided` event: the parked call runs exactly once (the claim
 * `done.<call id>` is taken with `kv.create`) through the normal stages — re-resolved at the
 * approved resource version, re-decided (a policy that now denies wins), re-validated against
 * the base tool (a saved-query call was parked expanded, so its saved query is not needed) —
 * or completes with APPROVAL_REJECTED / APPROVAL_EXPIRED. Its result is stored for polling and
 * announced by `call.completed` carrying the approval id. 'retry' asks for redelivery.
 */
export async function settleApproval(
  approval: Approval,
  deps: SettleDeps,
): Promise<'ack' | 'retry'> {
  if (approval.status === ApprovalStatus.PENDING || !CALL_ID.test(approval.callId)) return 'ack';
  const parked = await deps.parked.get(approval.callId);
  if (parked === undefined) return 'ack';
  const now = deps.clock();
  if (await deps.parked.claim(parked.callId, now)) {
    return inSpan('executor.resume', async () => {
      if (!(await run(parked, approval, deps, now))) return 'retry';
      await deps.parked.markRecorded(parked.callId, now);
      return 'ack';
    });
  }
  return settleClaimed(parked, deps, now);
}

/** A decision seen again after an instance claimed it: finish what that instance could not. */
async function settleClaimed(
  parked: ParkedCall,
  deps: SettleDeps,
  now: number,
): Promise<'ack' | 'retry'> {
  const claim = await deps.parked.claimOf(parked.callId);
  if (claim === undefined || claim.recorded === true) return 'ack';
  const stored = (await deps.results.get(parked.callId, parked.principal))?.result;
  if (stored !== undefined && isFinal(stored.status)) {
    // The result was stored but its event may not have been: record it again (deduplicated downstream).
    const recorded = await deps.runner.record(trailOf(parked, now), stored, 'completed');
    if (!recorded.recorded) return 'retry';
    await deps.parked.markRecorded(parked.callId, claim.claimedAt);
    return 'ack';
  }
  const margin = deps.settings.staleMarginMs ?? STALE_MARGIN_MS;
  if (now - claim.claimedAt < deps.settings.maxCallTimeoutMs + margin) return 'retry';
  const trail = trailOf(parked, now);
  const unknown =
    (parked.operationClass ?? 'write') !== 'read'
      ? new TollgateError(
          'WRITE_OUTCOME_UNKNOWN',
          'The executor running this approved write stopped; it may or may not have been applied. Check before writing again.',
        )
      : new TollgateError(
          'INTERNAL',
          'The executor running this approved call stopped; call again.',
        );
  const recorded = await deps.runner.record(trail, errorResult(trail, unknown, now), 'completed');
  if (!recorded.recorded) return 'retry';
  await deps.parked.markRecorded(parked.callId, claim.claimedAt);
  return 'ack';
}

async function run(
  parked: ParkedCall,
  approval: Approval,
  deps: SettleDeps,
  now: number,
): Promise<boolean> {
  const trail = trailOf(parked, now);
  const { runner } = deps;
  const recorded = await runner.runAndRecord(trail, async () => {
    const obstacle = approvalObstacle(parked, approval, now);
    if (obstacle !== undefined) throw obstacle;
    const principal = trail.principal as Principal;
    const resource = await runner.stage(trail, 'resolve', () =>
      approvedResource(parked, deps.resources.get(principal, parked.resource.name)),
    );
    trail.resource = resource;
    const verdict = await runner.stage(trail, 'decide', () => {
      const decided = decideCall(
        deps.deciders,
        principal,
        resource,
        parked.operation,
        parked.args,
        deps.clock(),
      );
      trail.decision = decided.decision;
      if (decided.decision.decision === 'deny') throw denialError(decided.decision);
      return decided;
    });
    const validated = await runner.stage(trail, 'validate', () =>
      validateCall(
        deps.validators,
        resource,
        verdict.permissions,
        parked.tool.name,
        parked.tool.version,
        parked.args,
      ),
    );
    trail.tool = validated.tool;
    trail.args = validated.args;
    return runner.perform(trail, {
      principal,
      resource,
      permissions: verdict.permissions,
      operation: parked.operation,
      args: validated.args,
    });
  });
  deps.logger.info(
    {
      callId: parked.callId,
      approvalId: parked.approvalId,
      status: CallStatus[recorded.result.status],
    },
    'parked call settled',
  );
  return recorded.recorded;
}

/** The trail of a resumed call: pollable, reported by `call.completed` with its approval id. */
function trailOf(parked: ParkedCall, now: number): CallTrail {
  const budgetMs = parked.budgetMs;
  return {
    callId: parked.callId,
    sessionId: parked.sessionId,
    requestedTool: parked.tool.name,
    arguments: parked.args,
    idempotencyKey: parked.idempotencyKey,
    startedAt: now,
    budgetMs,
    deadline: deadlineOf(now, budgetMs),
    stage: 'approval',
    phase: 'finishing',
    traceId: parked.traceId ?? traceIdOf(undefined),
    principal: { ...parked.principal },
    operation: parked.operation,
    approvalId: parked.approvalId,
    pollable: true,
    timings: {},
    ...(parked.savedQuery ? { savedQuery: { ...parked.savedQuery } } : {}),
  };
}

function isFinal(status: CallStatus): boolean {
  return status === CallStatus.OK || status === CallStatus.ERROR;
}
