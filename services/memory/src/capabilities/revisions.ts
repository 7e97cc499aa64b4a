/**
 * How saved queries and skills evolve: every change is a new, immutable revision bound to the
 * hash of its content; it takes effect only when a person approves exactly that content, and
 * only if the approved revision it was written against is still the one in effect. Pure: the
 * store applies the result with a compare-and-set on the capability's version.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, TollgateError } from '@tollgate/core';
import { isProposer } from '../access/review.js';
import type { Actor, Capability, Owner, Revision } from '../types.js';

/** Revisions kept per saved query or skill. */
export const MAX_REVISIONS = 100;

/** sha256 (hex) of the canonical JSON of a revision's content. */
export function contentHash(content: unknown): string {
  return createHash('sha256').update(canonicalJson(content), 'utf8').digest('hex');
}

function revisionOf<C>(content: C, proposedBy: Actor, baseHash: string, n: number, now: Date) {
  const revision: Revision<C> = {
    revision: n,
    content,
    contentHash: contentHash(content),
    baseHash,
    status: 'proposed',
    proposedBy,
    createdAt: now,
    decidedBy: undefined,
    decidedAt: undefined,
    reason: '',
  };
  return revision;
}

/** A new capability whose first revision is proposed (or, for a confirmed candidate, approved). */
export function newCapability<C>(init: {
  id: string;
  owner: Owner;
  name: string;
  sessionId: string;
  content: C;
  proposedBy: Actor;
  now: Date;
  /** Set when a person already approved the content (confirming a candidate). */
  approvedBy?: Actor;
}): Capability<C> {
  const first = revisionOf(init.content, init.proposedBy, '', 1, init.now);
  if (init.approvedBy !== undefined) {
    Object.assign(first, { status: 'approved', decidedBy: init.approvedBy, decidedAt: init.now });
  }
  return {
    id: init.id,
    owner: init.owner,
    name: init.name,
    sessionId: init.sessionId,
    revisions: [first],
    approvedRevision: init.approvedBy !== undefined ? 1 : 0,
    approvedHash: init.approvedBy !== undefined ? first.contentHash : '',
    createdAt: init.now,
    updatedAt: init.now,
    version: 1,
  };
}

export function latestRevision<C>(capability: Capability<C>): Revision<C> {
  const latest = capability.revisions.at(-1);
  if (latest === undefined) throw new Error(`capability ${capability.id} has no revisions`);
  return latest;
}

/** The revision in effect, or undefined while none is approved. */
export function approvedRevision<C>(capability: Capability<C>): Revision<C> | undefined {
  return capability.revisions.find((r) => r.revision === capability.approvedRevision);
}

/**
 * Proposes an edit against the approved revision whose hash is `baseHash`. A stale base (or
 * latest revision, when `expectedRevision` is given) is VERSION_CONFLICT; content equal to
 * what is in effect changes nothing and is refused.
 */
export function proposeRevision<C>(
  capability: Capability<C>,
  edit: { content: C; proposedBy: Actor; baseHash: string; expectedRevision?: number; now: Date },
): { capability: Capability<C>; revision: Revision<C> } {
  const latest = latestRevision(capability);
  if (edit.baseHash !== capability.approvedHash) {
    throw new TollgateError(
      'VERSION_CONFLICT',
      capability.approvedHash === ''
        ? `${capability.name} has no approved revision yet; base_hash must be empty.`
        : `base_hash is stale: the approved revision of ${capability.name} is now ${capability.approvedRevision}; re-read it and edit that.`,
      {
        details: [{ path: 'base_hash', message: 'stale base', expected: capability.approvedHash }],
      },
    );
  }
  if (edit.expectedRevision !== undefined && edit.expectedRevision !== latest.revision) {
    throw new TollgateError(
      'VERSION_CONFLICT',
      `expected_revision ${edit.expectedRevision} is stale: the latest revision is ${latest.revision}.`,
    );
  }
  const revision = revisionOf(
    edit.content,
    edit.proposedBy,
    edit.baseHash,
    latest.revision + 1,
    edit.now,
  );
  if (revision.contentHash === capability.approvedHash) {
    throw new TollgateError(
      'INVALID_ARGUMENT',
      'The edit changes nothing: it equals the approved revision.',
    );
  }
  if (capability.revisions.length >= MAX_REVISIONS) {
    throw new TollgateError(
      'INVALID_ARGUMENT',
      `${capability.name} has ${MAX_REVISIONS} revisions; delete it and create it anew.`,
    );
  }
  return {
    capability: {
      ...capability,
      revisions: [...capability.revisions, revision],
      updatedAt: edit.now,
    },
    revision,
  };
}

function proposedRevision<C>(capability: Capability<C>, n: number): Revision<C> {
  const revision = capability.revisions.find((r) => r.revision === n);
  if (revision === undefined) {
    throw new TollgateError('NOT_FOUND', `${capability.name} has no revision ${n}.`);
  }
  if (revision.status !== 'proposed') {
    throw new TollgateError(
      'VERSION_CONFLICT',
      `Revision ${n} of ${capability.name} was already ${revision.status}.`,
    );
  }
  return revision;
}

function decided<C>(
  capability: Capability<C>,
  n: number,
  change: Partial<Revision<C>>,
): Capability<C> {
  return {
    ...capability,
    revisions: capability.revisions.map((r) => (r.revision === n ? { ...r, ...change } : r)),
  };
}

/**
 * Approves revision `n`, bound to `contentHash` (the content the reviewer saw). The revision
 * must still be proposed, its base must still be the approved hash, and `mayReview` (see
 * review.ts) must accept the reviewer for the revision's proposer.
 */
export function approveRevision<C>(
  capability: Capability<C>,
  decision: {
    revision: number;
    contentHash: string;
    reviewer: Actor;
    reason: string;
    now: Date;
    mayReview: (proposer: Actor) => void;
  },
): { capability: Capability<C>; revision: Revision<C> } {
  const revision = proposedRevision(capability, decision.revision);
  if (decision.contentHash !== revision.contentHash) {
    throw new TollgateError(
      'VERSION_CONFLICT',
      `content_hash does not match revision ${revision.revision} of ${capability.name}; approve the content you reviewed.`,
      {
        details: [
          { path: 'content_hash', message: 'hash mismatch', expected: revision.contentHash },
        ],
      },
    );
  }
  if (revision.baseHash !== capability.approvedHash) {
    throw new TollgateError(
      'VERSION_CONFLICT',
      `Revision ${revision.revision} edits a revision of ${capability.name} that is no longer the approved one; propose it again against the current one.`,
    );
  }
  decision.mayReview(revision.proposedBy);
  const change = {
    status: 'approved' as const,
    decidedBy: decision.reviewer,
    decidedAt: decision.now,
    reason: decision.reason,
  };
  const next = {
    ...decided(capability, revision.revision, change),
    approvedRevision: revision.revision,
    approvedHash: revision.contentHash,
    updatedAt: decision.now,
  };
  return { capability: next, revision: { ...revision, ...change } };
}

/** Rejects revision `n`: a reviewer may, and the proposer may withdraw it. */
export function rejectRevision<C>(
  capability: Capability<C>,
  decision: {
    revision: number;
    reviewer: Actor;
    reason: string;
    now: Date;
    mayReview: (proposer: Actor) => void;
  },
): { capability: Capability<C>; revision: Revision<C> } {
  const revision = proposedRevision(capability, decision.revision);
  if (!isProposer(decision.reviewer, revision.proposedBy)) {
    decision.mayReview(revision.proposedBy);
  }
  const change = {
    status: 'rejected' as const,
    decidedBy: decision.reviewer,
    decidedAt: decision.now,
    reason: decision.reason,
  };
  return {
    capability: { ...decided(capability, revision.revision, change), updatedAt: decision.now },
    revision: { ...revision, ...change },
  };
}
