import { create } from '@bufbuild/protobuf';
import { PolicySubject } from '@tollgate/contracts/events/v1';
import { ApprovalSchema } from '@tollgate/contracts/policy/v1';
import { EventTypes, derivedEventId, envelope, publishEnvelope } from '@tollgate/kit';
import type { EventPublisher } from '@tollgate/kit';
import { approvalMessage } from './api/convert.js';
import type { ApprovalRecord } from './approvals/record.js';

/** A stored change of an Agent or Policy, announced with the bundle that includes it. */
export interface DeclarationChange {
  subject: 'agent' | 'policy';
  name: string;
  version: number;
  deleted: boolean;
  changedBy: string;
}

const SUBJECTS: Record<DeclarationChange['subject'], PolicySubject> = {
  agent: PolicySubject.AGENT,
  policy: PolicySubject.POLICY,
};

/**
 * Publishes `policy.changed`: one event per declaration change the bundle includes, or one
 * without a subject when only resources changed it. Event ids derive from tenant, bundle version
 * and change, so a retried publication is stored once.
 */
export async function announceBundle(
  events: EventPublisher,
  bundle: { tenant: string; version: number; hash: string },
  changes: DeclarationChange[],
): Promise<void> {
  const items = changes.length > 0 ? changes : [undefined];
  for (const change of items) {
    const event = envelope(
      EventTypes.policyChanged,
      bundle.tenant,
      {
        case: 'policyChanged',
        value: {
          tenant: bundle.tenant,
          subject: change ? SUBJECTS[change.subject] : PolicySubject.UNSPECIFIED,
          name: change?.name ?? '',
          version: change?.version ?? 0,
          deleted: change?.deleted ?? false,
          bundleHash: bundle.hash,
          changedBy: change?.changedBy ?? '',
        },
      },
      derivedEventId(
        'policy.changed',
        bundle.tenant,
        String(bundle.version),
        change ? `${change.subject}/${change.name}/${change.version}` : 'resources',
      ),
    );
    await publishEnvelope(events, event);
  }
}

/** Publishes `approval.decided`; its id derives from the approval, so it is stored once. */
export async function announceDecision(
  events: EventPublisher,
  record: ApprovalRecord,
): Promise<void> {
  const event = envelope(
    EventTypes.approvalDecided,
    record.tenant,
    {
      case: 'approvalDecided',
      value: { approval: create(ApprovalSchema, approvalMessage(record)) },
    },
    derivedEventId('approval.decided', record.id),
  );
  await publishEnvelope(events, event);
}
