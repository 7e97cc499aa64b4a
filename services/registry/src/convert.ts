/** Domain values to their protobuf messages (init shapes). */
import type { JsonObject, MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { WarningSchema } from '@tollgate/contracts/common/v1';
import { DraftStatus } from '@tollgate/contracts/registry/v1';
import type {
  DiscoveredFieldSchema,
  DraftSchema,
  ResourceVersionSchema,
} from '@tollgate/contracts/registry/v1';
import type { DraftView } from './drafts.js';
import type { FieldReport } from './proposal.js';
import type { VersionRecord } from './records.js';
import type { Warning } from './warnings.js';

const STATUSES: Record<DraftView['status'], DraftStatus> = {
  pending: DraftStatus.PENDING,
  confirmed: DraftStatus.CONFIRMED,
  rejected: DraftStatus.REJECTED,
  expired: DraftStatus.EXPIRED,
};

export function resourceVersionMessage(
  record: VersionRecord,
): MessageInitShape<typeof ResourceVersionSchema> {
  return {
    tenant: record.tenant,
    environment: record.environment,
    name: record.name,
    version: record.version,
    descriptor: record.descriptor as unknown as JsonObject,
    createdAt: timestampFromDate(record.createdAt),
    createdBy: record.createdBy,
    deleted: record.deleted,
    contentHash: record.hash,
    rolledBackFrom: record.rolledBackFrom,
  };
}

/** Diffs as API messages: one conversion for every service (in kit). */
export { diffMessages } from '@tollgate/kit';

export function warningMessages(warnings: Warning[]): MessageInitShape<typeof WarningSchema>[] {
  return warnings.map(({ code, path, message }) => ({ code, path, message }));
}

export function fieldMessages(
  fields: FieldReport[],
): MessageInitShape<typeof DiscoveredFieldSchema>[] {
  return fields.map((field) => ({
    name: field.name,
    type: field.type,
    nativeType: field.nativeType,
    declared: field.declared,
    declaredType: field.declaredType ?? '',
    searchable: field.searchable,
    aggregatable: field.aggregatable,
    proposedCapabilities: field.proposedCapabilities,
  }));
}

export function draftMessage(draft: DraftView): MessageInitShape<typeof DraftSchema> {
  return {
    id: draft.id,
    tenant: draft.tenant,
    environment: draft.environment,
    name: draft.name,
    descriptor: draft.descriptor,
    fields: fieldMessages(draft.fields),
    warnings: warningMessages(draft.warnings),
    status: STATUSES[draft.status],
    sessionId: draft.sessionId,
    createdBy: draft.createdBy,
    createdAt: timestampFromDate(draft.createdAt),
    expiresAt: timestampFromDate(draft.expiresAt),
    decidedBy: draft.decidedBy,
    reason: draft.reason,
    version: draft.version,
    echo: draft.echo,
    confirmable: draft.confirmable,
  };
}
