/** Domain values to their protobuf messages (init shapes). */
import type { JsonObject, MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ErrorCode } from '@tollgate/contracts/common/v1';
import { ApprovalStatus, DecisionEffect } from '@tollgate/contracts/policy/v1';
import type {
  AgentSchema,
  ApprovalSchema,
  DecisionSchema,
  PermissionSetSchema,
  PolicySchema,
} from '@tollgate/contracts/policy/v1';
import type { OfferedPermissions, PolicyDecision, PolicyEffect } from '@tollgate/policy';
import type { ApprovalRecord, ApprovalState } from '../approvals/record.js';
import type { AgentRecord, PolicyRecord } from '../store/declarations.js';

const EFFECTS: Record<PolicyEffect, DecisionEffect> = {
  allow: DecisionEffect.ALLOW,
  deny: DecisionEffect.DENY,
  require_approval: DecisionEffect.REQUIRE_APPROVAL,
};

const STATUSES: Record<ApprovalState, ApprovalStatus> = {
  pending: ApprovalStatus.PENDING,
  approved: ApprovalStatus.APPROVED,
  rejected: ApprovalStatus.REJECTED,
  expired: ApprovalStatus.EXPIRED,
};

export function effectMessage(effect: PolicyEffect): DecisionEffect {
  return EFFECTS[effect];
}

export function decisionMessage(decision: PolicyDecision): MessageInitShape<typeof DecisionSchema> {
  return {
    effect: EFFECTS[decision.decision],
    policyIds: [...decision.policyIds],
    reason: decision.reason,
    errorCode:
      decision.errorCode === 'POLICY_UNAVAILABLE'
        ? ErrorCode.POLICY_UNAVAILABLE
        : decision.errorCode === 'POLICY_DENIED'
          ? ErrorCode.POLICY_DENIED
          : ErrorCode.UNSPECIFIED,
    bundleVersion: decision.bundleVersion ?? 0,
  };
}

export function permissionSetMessage(
  permissions: OfferedPermissions,
): MessageInitShape<typeof PermissionSetSchema> {
  return {
    operations: [...permissions.operations],
    visibleFields: [...permissions.visibleFields],
    filterableFields: [...permissions.filterableFields],
    limitCap: permissions.limitCap,
  };
}

export function policyMessage(record: PolicyRecord): MessageInitShape<typeof PolicySchema> {
  return {
    tenant: record.tenant,
    name: record.name,
    version: record.version,
    descriptor: record.descriptor as unknown as JsonObject,
    cedar: record.cedar,
    contentHash: record.hash,
    createdAt: timestampFromDate(record.createdAt),
    createdBy: record.createdBy,
    deleted: record.deleted,
  };
}

export function agentMessage(record: AgentRecord): MessageInitShape<typeof AgentSchema> {
  const spec = record.descriptor.spec;
  return {
    tenant: record.tenant,
    name: record.name,
    version: record.version,
    descriptor: record.descriptor as unknown as JsonObject,
    roles: [...spec.roles].sort(),
    description: spec.description ?? record.descriptor.metadata.description ?? '',
    user: spec.user ?? '',
    contentHash: record.hash,
    createdAt: timestampFromDate(record.createdAt),
    createdBy: record.createdBy,
    deleted: record.deleted,
  };
}

export function approvalMessage(record: ApprovalRecord): MessageInitShape<typeof ApprovalSchema> {
  const p = record.principal;
  return {
    id: record.id,
    status: STATUSES[record.status],
    principal: {
      tenant: p.tenant,
      agent: p.agent,
      user: p.user,
      roles: [...p.roles],
      environment: p.environment,
      tokenId: p.tokenId,
    },
    resource: record.resource,
    resourceVersion: record.resourceVersion,
    tool: record.tool,
    argumentsHash: record.argumentsHash,
    requestedAt: timestampFromDate(record.requestedAt),
    expiresAt: timestampFromDate(record.expiresAt),
    decidedBy: record.decision?.decidedBy ?? '',
    reason: record.decision?.reason ?? '',
    ...(record.decision ? { decidedAt: timestampFromDate(record.decision.decidedAt) } : {}),
    callId: record.callId,
    sessionId: record.sessionId,
    arguments: record.arguments,
    policyIds: [...record.policyIds],
  };
}

/** Diffs as API messages: one conversion for every service (in kit). */
export { diffMessages } from '@tollgate/kit';
