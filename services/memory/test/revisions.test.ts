import { describe, expect, it } from 'vitest';
import { TollgateError, canonicalJson } from '@tollgate/core';
import { createHash } from 'node:crypto';
import {
  approveRevision,
  contentHash,
  newCapability,
  proposeRevision,
  rejectRevision,
} from '../src/capabilities/revisions.js';
import type { Actor, Capability } from '../src/types.js';

const bot: Actor = { agent: 'bot', user: '' };
const alice: Actor = { agent: 'console', user: 'alice' };
const bob: Actor = { agent: 'console', user: 'bob' };
const now = new Date('2026-01-01T00:00:00Z');
const v1 = { instructions: 'look up the order, then its refunds' };
const v2 = { instructions: 'look up the order, then its refunds and notes' };

function created(): Capability<typeof v1> {
  return newCapability({
    id: 's1',
    owner: { tenant: 't', agent: 'bot', user: '' },
    name: 'refund_check',
    sessionId: '',
    content: v1,
    proposedBy: bot,
    now,
  });
}

/** The review rule in small: a proposer never approves its own proposal. */
const refuseSelf = (reviewer: Actor) => (proposer: Actor) => {
  if (reviewer.agent === proposer.agent && reviewer.user === proposer.user)
    throw new TollgateError('POLICY_DENIED', 'self-approval');
};

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof TollgateError) return err.code;
    throw err;
  }
  return undefined;
}

describe('revisions - review bound to content hashes', () => {
  it('revisions - the content hash is sha256 of the canonical JSON', () => {
    expect(contentHash({ b: 1, a: [2] })).toBe(
      createHash('sha256')
        .update(canonicalJson({ a: [2], b: 1 }))
        .digest('hex'),
    );
  });

  it('revisions - approval needs the exact content hash and records it as in effect', () => {
    const capability = created();
    const hash = capability.revisions[0]!.contentHash;
    expect(
      code(() =>
        approveRevision(capability, {
          revision: 1,
          contentHash: contentHash(v2),
          reviewer: alice,
          mayReview: refuseSelf(alice),
          reason: '',
          now,
        }),
      ),
    ).toBe('VERSION_CONFLICT');
    const { capability: approved, revision } = approveRevision(capability, {
      revision: 1,
      contentHash: hash,
      reviewer: alice,
      mayReview: refuseSelf(alice),
      reason: 'ok',
      now,
    });
    expect(revision).toMatchObject({ status: 'approved', decidedBy: alice });
    expect(approved).toMatchObject({ approvedRevision: 1, approvedHash: hash });
    expect(
      code(() =>
        approveRevision(approved, {
          revision: 1,
          contentHash: hash,
          reviewer: bob,
          mayReview: refuseSelf(bob),
          reason: '',
          now,
        }),
      ),
    ).toBe('VERSION_CONFLICT');
  });

  it('revisions - an edit proposes against the approved hash and leaves it in effect', () => {
    const base = approveRevision(created(), {
      revision: 1,
      contentHash: contentHash(v1),
      reviewer: alice,
      reason: '',
      now,
      mayReview: refuseSelf(alice),
    }).capability;
    expect(
      code(() => proposeRevision(base, { content: v2, proposedBy: bot, baseHash: '', now })),
    ).toBe('VERSION_CONFLICT');
    expect(
      code(() =>
        proposeRevision(base, { content: v1, proposedBy: bot, baseHash: base.approvedHash, now }),
      ),
    ).toBe('INVALID_ARGUMENT');
    const { capability, revision } = proposeRevision(base, {
      content: v2,
      proposedBy: bot,
      baseHash: base.approvedHash,
      now,
    });
    expect(revision).toMatchObject({
      revision: 2,
      status: 'proposed',
      baseHash: base.approvedHash,
      contentHash: contentHash(v2),
    });
    expect(capability.approvedRevision).toBe(1);
  });

  it('revisions - of two edits against one approved hash, the second to be approved is stale', () => {
    let capability = approveRevision(created(), {
      revision: 1,
      contentHash: contentHash(v1),
      reviewer: alice,
      reason: '',
      now,
      mayReview: refuseSelf(alice),
    }).capability;
    const base = capability.approvedHash;
    capability = proposeRevision(capability, {
      content: v2,
      proposedBy: bot,
      baseHash: base,
      now,
    }).capability;
    const v3 = { instructions: 'something else' };
    capability = proposeRevision(capability, {
      content: v3,
      proposedBy: bot,
      baseHash: base,
      now,
    }).capability;
    capability = approveRevision(capability, {
      revision: 3,
      contentHash: contentHash(v3),
      reviewer: alice,
      mayReview: refuseSelf(alice),
      reason: '',
      now,
    }).capability;
    expect(
      code(() =>
        approveRevision(capability, {
          revision: 2,
          contentHash: contentHash(v2),
          reviewer: alice,
          mayReview: refuseSelf(alice),
          reason: '',
          now,
        }),
      ),
    ).toBe('VERSION_CONFLICT');
    expect(capability).toMatchObject({ approvedRevision: 3, approvedHash: contentHash(v3) });
  });

  it('revisions - the proposer cannot approve but may withdraw', () => {
    const capability = newCapability({
      id: 's1',
      owner: { tenant: 't', agent: 'console', user: '' },
      name: 'x_skill',
      sessionId: '',
      content: v1,
      proposedBy: alice,
      now,
    });
    expect(
      code(() =>
        approveRevision(capability, {
          revision: 1,
          contentHash: contentHash(v1),
          reviewer: alice,
          mayReview: refuseSelf(alice),
          reason: '',
          now,
        }),
      ),
    ).toBe('POLICY_DENIED');
    expect(
      rejectRevision(capability, {
        revision: 1,
        reviewer: alice,
        reason: 'withdrawn',
        now,
        mayReview: refuseSelf(alice),
      }).revision.status,
    ).toBe('rejected');
    expect(
      code(() =>
        rejectRevision(created(), {
          revision: 1,
          reviewer: { agent: 'other', user: '' },
          reason: '',
          now,
          mayReview: () => {
            throw new TollgateError('POLICY_DENIED', 'a person must review this');
          },
        }),
      ),
    ).toBe('POLICY_DENIED');
    expect(
      code(() =>
        approveRevision(capability, {
          revision: 9,
          contentHash: contentHash(v1),
          reviewer: bob,
          mayReview: refuseSelf(bob),
          reason: '',
          now,
        }),
      ),
    ).toBe('NOT_FOUND');
  });
});
