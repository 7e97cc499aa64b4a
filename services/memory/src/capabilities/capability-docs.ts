/**
 * How a saved query or skill is stored: one document per capability with every revision
 * embedded (content as JSON text), and how it is read back and checked.
 */
import type { CapabilitySpec } from './capability-spec.js';
import type { StoredDocument } from '../store/collections.js';
import { StoredDoc } from '../store/stored-doc.js';
import type { Capability } from '../types.js';

export function capabilityDoc<C>(
  spec: CapabilitySpec<C>,
  capability: Capability<C>,
): StoredDocument {
  return {
    _id: capability.id,
    ...capability.owner,
    name: capability.name,
    sessionId: capability.sessionId,
    revisions: capability.revisions.map((r) => ({
      revision: r.revision,
      contentJson: JSON.stringify(spec.toJson(r.content)),
      indexKey: spec.indexKey?.(r.content) ?? '',
      contentHash: r.contentHash,
      baseHash: r.baseHash,
      status: r.status,
      proposedBy: r.proposedBy,
      createdAt: r.createdAt,
      decidedBy: r.decidedBy ?? null,
      decidedAt: r.decidedAt ?? null,
      reason: r.reason,
    })),
    approvedRevision: capability.approvedRevision,
    approvedHash: capability.approvedHash,
    createdAt: capability.createdAt,
    updatedAt: capability.updatedAt,
    version: capability.version,
  };
}

export function readCapability<C>(spec: CapabilitySpec<C>, doc: StoredDocument): Capability<C> {
  const d = new StoredDoc(`memory_${spec.kind}s`, doc);
  const revisions = d.list('revisions').map((r) => ({
    revision: r.number('revision'),
    content: spec.fromJson(r.jsonObject('contentJson')),
    contentHash: r.string('contentHash'),
    baseHash: r.string('baseHash'),
    status: r.oneOf('status', ['proposed', 'approved', 'rejected'] as const),
    proposedBy: r.actor('proposedBy'),
    createdAt: r.date('createdAt'),
    decidedBy: r.optionalActor('decidedBy'),
    decidedAt: r.optionalDate('decidedAt'),
    reason: r.string('reason'),
  }));
  if (revisions.length === 0) d.fail('revisions is empty');
  return {
    id: d.string('_id'),
    owner: d.owner(),
    name: d.string('name'),
    sessionId: d.string('sessionId'),
    revisions,
    approvedRevision: d.number('approvedRevision'),
    approvedHash: d.string('approvedHash'),
    createdAt: d.date('createdAt'),
    updatedAt: d.date('updatedAt'),
    version: d.number('version'),
  };
}
