/**
 * Saved queries and skills as stored capabilities: one document per capability holding every
 * revision, so proposing, approving and rejecting are single-document compare-and-sets (the
 * local server has no transactions). The rules of review live in revisions.ts and review.ts;
 * what each kind's content is lives in its spec (saved-query.ts, skill.ts).
 */
import { randomUUID } from 'node:crypto';
import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import type { Collection, Document } from 'mongodb';
import type { Announcer, WriteKind } from '../announce.js';
import { canSee } from '../access/review.js';
import type { Caller, Reviewers } from '../access/review.js';
import {
  approveRevision,
  approvedRevision,
  latestRevision,
  newCapability,
  proposeRevision,
  rejectRevision,
} from './revisions.js';
import { listScope, useScope, writeOwner } from '../access/scope.js';
import { capabilityDoc, readCapability } from './capability-docs.js';
import type { CapabilitySpec } from './capability-spec.js';
import { claimTransition } from '../store/claims.js';
import { isDuplicateKey } from '@tollgate/kit';
import { findPage } from '../store/paging.js';
import type { StoredDocument } from '../store/collections.js';
import type { Actor, Capability, Owner, Revision, RevisionStatus } from '../types.js';
import { ITEM_ID, NAME, SESSION_ID } from '../requests/names.js';
import { Problems, TOOLS_EXPECTED } from '../requests/problems.js';

export interface CapabilityDeps {
  collection: Collection<StoredDocument>;
  /** Arbitrates version transitions (see `claimTransition`). */
  claims: Collection<StoredDocument>;
  announcer: Announcer;
  clock: () => Date;
  reviewers: Reviewers;
  /**
   * Told after every transition that may change which revision is in effect (approval,
   * creation already approved, deletion); never throws.
   */
  effectChanged?: (owner: Owner, name: string) => Promise<void>;
}

/** One revision with the capability it belongs to. */
export interface CapabilityView<C> {
  capability: Capability<C>;
  revision: Revision<C>;
}

export class CapabilityBook<C> {
  readonly #spec: CapabilitySpec<C>;
  readonly #deps: CapabilityDeps;

  constructor(spec: CapabilitySpec<C>, deps: CapabilityDeps) {
    this.#spec = spec;
    this.#deps = deps;
  }

  /** Creates a capability whose first revision waits for approval. */
  async create(
    caller: Caller,
    input: { name: string; user: string; sessionId: string; content: C },
  ): Promise<CapabilityView<C>> {
    const problems = new Problems().match('name', input.name, NAME, '[a-z][a-z0-9_]{2,62}');
    this.#spec.checkName?.(input.name, problems);
    if (input.sessionId !== '')
      problems.match('session_id', input.sessionId, SESSION_ID, 'a session id');
    this.#spec.check(input.content, problems);
    problems.throwIfAny(`${capitalise(this.#spec.label)} refused`);
    const owner = writeOwner(caller.principal, input.user);
    const capability = newCapability({
      id: randomUUID(),
      owner,
      name: input.name,
      sessionId: input.sessionId,
      content: input.content,
      proposedBy: caller.actor,
      now: this.#deps.clock(),
    });
    await this.#insert(capability);
    const revision = latestRevision(capability);
    await this.#announce(capability, revision, 'proposed', caller.actor);
    return { capability, revision };
  }

  /** Creates a capability already approved by `approver` (a confirmed candidate); idempotent on id. */
  async createApproved(init: {
    id: string;
    owner: Owner;
    name: string;
    content: C;
    proposedBy: Actor;
    approver: Actor;
  }): Promise<CapabilityView<C>> {
    const problems = new Problems().match('name', init.name, NAME, '[a-z][a-z0-9_]{2,62}');
    this.#spec.checkName?.(init.name, problems);
    this.#spec.check(init.content, problems);
    problems.throwIfAny(`${capitalise(this.#spec.label)} refused`);
    const existing = await this.#deps.collection.findOne({ _id: init.id });
    if (existing !== null) {
      const capability = readCapability(this.#spec, existing);
      // A retry after a crash may find it stored but not yet projected.
      await this.#deps.effectChanged?.(capability.owner, capability.name);
      return { capability, revision: latestRevision(capability) };
    }
    const capability = newCapability({
      ...init,
      sessionId: '',
      approvedBy: init.approver,
      now: this.#deps.clock(),
    });
    await this.#insert(capability);
    const revision = latestRevision(capability);
    await this.#deps.effectChanged?.(capability.owner, capability.name);
    await this.#announce(capability, revision, 'approved', init.approver);
    return { capability, revision };
  }

  /** A revision (0 = the approved one in effect) of a capability the principal may see. */
  async get(caller: Caller, id: string, revision: number): Promise<CapabilityView<C>> {
    const capability = await this.#visible(caller, id);
    const found =
      revision === 0
        ? approvedRevision(capability)
        : capability.revisions.find((r) => r.revision === revision);
    if (found === undefined) {
      throw new TollgateError(
        'NOT_FOUND',
        revision === 0
          ? `${capitalise(this.#spec.label)} ${capability.name} has no approved revision yet.`
          : `${capitalise(this.#spec.label)} ${capability.name} has no revision ${revision}.`,
      );
    }
    return { capability, revision: found };
  }

  /**
   * Lists revisions: `undefined`/`approved` = the approved revision of each capability;
   * `proposed`/`rejected` = every revision with that status.
   */
  async list(
    caller: Caller,
    request: {
      status: RevisionStatus | undefined;
      agent: string;
      indexKey?: string;
      pageSize: number;
      pageToken: string;
    },
  ): Promise<{ views: CapabilityView<C>[]; nextPageToken: string }> {
    const status = request.status ?? 'approved';
    const filter: Document = {
      ...listScope(caller, request),
      ...(status === 'approved'
        ? { approvedRevision: { $gt: 0 } }
        : { 'revisions.status': status }),
    };
    if (request.indexKey) filter['revisions.indexKey'] = request.indexKey;
    const page = await findPage(this.#deps.collection, filter, {
      size: request.pageSize,
      token: request.pageToken,
    });
    const views = page.docs.flatMap((doc) => {
      const capability = readCapability(this.#spec, doc);
      const revisions =
        status === 'approved'
          ? [approvedRevision(capability)].filter((r) => r !== undefined)
          : capability.revisions.filter((r) => r.status === status);
      return revisions
        .filter((r) => !request.indexKey || this.#spec.indexKey?.(r.content) === request.indexKey)
        .map((revision) => ({ capability, revision }));
    });
    return { views, nextPageToken: page.nextPageToken };
  }

  /** Approved revisions in the principal's own memory (for recall). */
  async approvedFor(principal: Principal, limit = 500): Promise<CapabilityView<C>[]> {
    const docs = await this.#deps.collection
      .find({ ...useScope(principal), approvedRevision: { $gt: 0 } })
      .limit(limit)
      .toArray();
    return docs.flatMap((doc) => {
      const capability = readCapability(this.#spec, doc);
      const revision = approvedRevision(capability);
      return revision === undefined ? [] : [{ capability, revision }];
    });
  }

  /** Proposes an edit (a new revision) against the approved hash `baseHash`. */
  async update(
    caller: Caller,
    id: string,
    edit: { content: C; baseHash: string; expectedRevision: number | undefined },
  ): Promise<CapabilityView<C>> {
    const problems = new Problems();
    this.#spec.check(edit.content, problems);
    problems.throwIfAny(`${capitalise(this.#spec.label)} edit refused`);
    const proposer = caller.actor;
    const result = await this.#change(caller, id, (capability) => {
      // A name allowed before the limit: its edits could never be offered, so say why.
      const named = new Problems();
      this.#spec.checkName?.(capability.name, named);
      named.throwIfAny(`${capitalise(this.#spec.label)} edit refused`);
      return proposeRevision(capability, {
        content: edit.content,
        proposedBy: proposer,
        baseHash: edit.baseHash,
        ...(edit.expectedRevision !== undefined ? { expectedRevision: edit.expectedRevision } : {}),
        now: this.#deps.clock(),
      });
    });
    await this.#announce(result.capability, result.revision, 'proposed', proposer);
    return result;
  }

  async approve(
    caller: Caller,
    id: string,
    decision: { revision: number; contentHash: string; reason: string },
  ): Promise<CapabilityView<C>> {
    const problems = new Problems();
    if (decision.revision < 1)
      problems.add('revision', 'revision is required', 'a revision number ≥ 1');
    if (!/^[0-9a-f]{64}$/.test(decision.contentHash)) {
      problems.add(
        'content_hash',
        'content_hash is required: approval is bound to the content reviewed',
        'a sha256 hex digest',
      );
    }
    problems
      .text('reason', decision.reason, { max: 500 })
      .screen('reason', decision.reason, TOOLS_EXPECTED);
    problems.throwIfAny('Approval refused');
    const reviewer = caller.actor;
    const result = await this.#change(caller, id, (capability) =>
      approveRevision(capability, {
        ...decision,
        reviewer,
        now: this.#deps.clock(),
        mayReview: (proposer) =>
          this.#deps.reviewers.assertMayReview(caller, proposer, capability.owner),
      }),
    );
    await this.#deps.effectChanged?.(result.capability.owner, result.capability.name);
    await this.#announce(result.capability, result.revision, 'approved', reviewer);
    return result;
  }

  async reject(
    caller: Caller,
    id: string,
    decision: { revision: number; reason: string },
  ): Promise<CapabilityView<C>> {
    const problems = new Problems();
    if (decision.revision < 1)
      problems.add('revision', 'revision is required', 'a revision number ≥ 1');
    problems
      .text('reason', decision.reason, { max: 500 })
      .screen('reason', decision.reason, TOOLS_EXPECTED);
    problems.throwIfAny('Rejection refused');
    const reviewer = caller.actor;
    const result = await this.#change(caller, id, (capability) =>
      rejectRevision(capability, {
        ...decision,
        reviewer,
        now: this.#deps.clock(),
        mayReview: (proposer) =>
          this.#deps.reviewers.assertMayReview(caller, proposer, capability.owner),
      }),
    );
    await this.#announce(result.capability, result.revision, 'rejected', reviewer);
    return result;
  }

  async delete(caller: Caller, id: string): Promise<void> {
    const capability = await this.#visible(caller, id);
    const result = await this.#deps.collection.deleteOne({ _id: id });
    await this.#deps.effectChanged?.(capability.owner, capability.name);
    if (result.deletedCount === 1) {
      await this.#announce(capability, latestRevision(capability), 'deleted', caller.actor);
    }
  }

  async #change(
    caller: Caller,
    id: string,
    apply: (capability: Capability<C>) => CapabilityView<C>,
  ): Promise<CapabilityView<C>> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const current = await this.#visible(caller, id);
      const next = apply(current);
      const doc = capabilityDoc(this.#spec, { ...next.capability, version: current.version + 1 });
      const { _id: _ignored, ...fields } = doc;
      if (!(await claimTransition(this.#deps.claims, id, current.version, this.#deps.clock()))) {
        continue;
      }
      const written = await this.#deps.collection.findOneAndUpdate(
        { _id: id, version: current.version },
        { $set: fields },
        { returnDocument: 'after' },
      );
      if (written !== null) {
        const capability = readCapability(this.#spec, written);
        const revision = capability.revisions.find((r) => r.revision === next.revision.revision);
        if (revision === undefined) throw new Error(`revision ${next.revision.revision} vanished`);
        return { capability, revision };
      }
    }
    throw new TollgateError(
      'VERSION_CONFLICT',
      `${capitalise(this.#spec.label)} ${id} is being changed concurrently; retry.`,
    );
  }

  async #visible(caller: Caller, id: string): Promise<Capability<C>> {
    new Problems()
      .match('id', id, ITEM_ID, `a ${this.#spec.label} id`)
      .throwIfAny('Invalid request');
    const doc = await this.#deps.collection.findOne({ _id: id });
    const capability = doc === null ? undefined : readCapability(this.#spec, doc);
    if (capability === undefined || !canSee(caller, capability.owner)) {
      throw new TollgateError('NOT_FOUND', `${capitalise(this.#spec.label)} ${id} not found.`);
    }
    return capability;
  }

  async #insert(capability: Capability<C>): Promise<void> {
    try {
      await this.#deps.collection.insertOne(capabilityDoc(this.#spec, capability));
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      throw new TollgateError(
        'ALREADY_EXISTS',
        `A ${this.#spec.label} named ${capability.name} already exists here.`,
        {
          details: [
            { path: 'name', message: 'name taken', expected: 'a name not used by this owner' },
          ],
        },
      );
    }
  }

  async #announce(
    capability: Capability<C>,
    revision: Revision<C>,
    write: WriteKind,
    by: Actor,
  ): Promise<void> {
    await this.#deps.announcer.announce({
      owner: capability.owner,
      kind: this.#spec.kind,
      id: capability.id,
      version: revision.revision,
      write,
      sessionId: capability.sessionId,
      writtenBy: by,
    });
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
