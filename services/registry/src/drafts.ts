import { randomUUID } from 'node:crypto';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { TollgateError, isTollgateError } from '@tollgate/core';
import type {
  ConnectorRegistry,
  CredentialNamespaces,
  CredentialResolver,
  EgressGuard,
  Principal,
} from '@tollgate/core';
import { assertCredentialsInScope } from './credential-scope.js';
import type { DraftRecord, DraftStatus, DraftStore } from './draft-store.js';
import { echoProposal } from './echo.js';
import { preconditionFailed } from './errors.js';
import { applyMergePatch } from '@tollgate/core';
import {
  checkPartial,
  completeEnvelope,
  composeProposal,
  discoveryPaths,
  discoveryTarget,
} from './proposal.js';
import type { DiscoveryOutcome, Proposal } from './proposal.js';
import type { ChangeOutcome, Registry, ResourceQuery } from './registry.js';
import type { VersionRecord } from './records.js';
import { diffDocuments } from './diff.js';
import type { DiffEntry } from './diff.js';
import { scopeOf } from './scope.js';

/** What discovery found, and how it differs from the saved version. */
export interface Discovery extends Proposal {
  /** The current version (0: none, or deleted). */
  currentVersion: number;
  /** What saving the draft would change in the current version. */
  changes: DiffEntry[];
}

/** A draft as callers see it: its status accounts for expiry. */
export type DraftView = Omit<DraftRecord, 'status'> & { status: DraftStatus };

export interface DraftsDeps {
  store: DraftStore;
  registry: Registry;
  connectors: ConnectorRegistry;
  /** Resolves credential references just in time; credentials are never stored or returned. */
  credentials: CredentialResolver;
  /** Which credential references each tenant's resources may name (checked before discovery). */
  credentialNamespaces: CredentialNamespaces;
  /** How long a draft can be confirmed. */
  ttlMs: number;
  clock?: () => Date;
}

/**
 * Discovery and the draft → confirm flow for resources proposed in conversation: a partial
 * descriptor is completed, its schema discovered and merged, echoed back in plain language and
 * stored as a pending draft with an expiry; Confirm applies it as a real version, Reject
 * discards it. Drafts are visible only within the tenant and environment that proposed them.
 */
export class Drafts {
  readonly #d: DraftsDeps;
  readonly #clock: () => Date;

  constructor(deps: DraftsDeps) {
    this.#d = deps;
    this.#clock = deps.clock ?? (() => new Date());
  }

  /**
   * Connects and reads the real schema, merged with the declared one; when a version is saved,
   * also what saving the draft would change in it (a dry-run Apply: defaults and pins as a
   * real one). Stores nothing.
   */
  async discover(principal: Principal, input: JsonObject): Promise<Discovery> {
    const candidate = await this.#candidate(principal, input, (c) =>
      discoveryPaths(c, this.#d.connectors),
    );
    const target = discoveryTarget(candidate, this.#d.connectors);
    if (target === undefined) throw new Error('a checked candidate has no discovery target');
    const schema = await this.#d.connectors
      .get(target.kind.type)
      .discover(target.spec, this.#d.credentials, { egress: this.#egressOf(candidate) });
    const proposal = composeProposal(candidate, { schema }, this.#d.connectors);
    return { ...proposal, ...(await this.#sinceCurrent(principal, proposal)) };
  }

  /**
   * The current version and the draft's changes to it. A draft that could be saved as it is
   * is compared by a dry-run Apply (defaults and pins exactly as saving would make them); one
   * that could not — a changed type waits for the operator — directly, since that is when the
   * change matters most.
   */
  async #sinceCurrent(
    principal: Principal,
    proposal: Proposal,
  ): Promise<Pick<Discovery, 'currentVersion' | 'changes'>> {
    const { name, tenant, environment } = (proposal.descriptor.metadata ?? {}) as JsonObject;
    const text = (value: JsonValue | undefined) => (typeof value === 'string' ? value : undefined);
    const current =
      typeof name === 'string'
        ? await this.#current(principal, {
            name,
            tenant: text(tenant),
            environment: text(environment),
          })
        : undefined;
    if (current === undefined) return { currentVersion: 0, changes: [] };
    if (!proposal.confirmable) {
      return {
        currentVersion: current.version,
        changes: diffDocuments(current.descriptor as unknown as JsonValue, proposal.descriptor),
      };
    }
    const outcome = await this.#d.registry.apply(principal, proposal.descriptor, { dryRun: true });
    return { currentVersion: current.version, changes: outcome.unchanged ? [] : outcome.diff };
  }

  /** The current version; undefined for none or a deleted resource. */
  async #current(principal: Principal, query: ResourceQuery): Promise<VersionRecord | undefined> {
    try {
      return await this.#d.registry.get(principal, { ...query, version: 0 });
    } catch (err) {
      if (isTollgateError(err) && err.code === 'NOT_FOUND') return undefined;
      throw err;
    }
  }

  /** Proposes a resource from a partial descriptor and stores it as a pending draft. */
  async draft(principal: Principal, input: JsonObject, sessionId: string): Promise<DraftView> {
    const candidate = await this.#candidate(principal, input, () => ['metadata.name']);
    const proposal = composeProposal(
      candidate,
      await this.#discoverForDraft(candidate),
      this.#d.connectors,
    );
    const metadata = candidate.metadata as JsonObject;
    const now = this.#clock();
    const draft: DraftRecord = {
      id: randomUUID(),
      tenant: principal.tenant,
      environment: principal.environment,
      name: metadata.name as string,
      descriptor: proposal.descriptor,
      fields: proposal.fields,
      warnings: proposal.warnings,
      blocking: proposal.blocking,
      confirmable: proposal.confirmable,
      echo: echoProposal(proposal, this.#d.connectors),
      status: 'pending',
      sessionId,
      createdBy: principal.agent,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.#d.ttlMs),
      decidedBy: '',
      reason: '',
      version: 0,
    };
    await this.#d.store.insert(draft);
    return this.#view(draft);
  }

  /** Applies a pending draft (with optional merge-patch edits) as the resource's next version. */
  async confirm(
    principal: Principal,
    id: string,
    options: { expectedVersion?: number | undefined; edits?: JsonObject | undefined },
  ): Promise<{ outcome: ChangeOutcome; draft: DraftView }> {
    const draft = await this.#pending(principal, id);
    if (draft.blocking.length > 0) {
      throw preconditionFailed(
        `Draft ${id} cannot be saved as proposed (${draft.blocking[0]?.message}); fix the descriptor and draft it again.`,
        'draft_id',
      );
    }
    const descriptor =
      options.edits === undefined ? draft.descriptor : editDraft(draft, options.edits);
    const outcome = await this.#d.registry.apply(principal, descriptor, {
      expectedVersion: options.expectedVersion,
    });
    const decision = {
      status: 'confirmed' as const,
      decidedBy: principal.agent,
      reason: '',
      version: outcome.record.version,
    };
    if (!(await this.#d.store.decide(id, decision))) throw await this.#alreadyDecided(id);
    return { outcome, draft: this.#view({ ...draft, ...decision }) };
  }

  /** Discards a pending draft. */
  async reject(principal: Principal, id: string, reason: string): Promise<DraftView> {
    const draft = await this.#pending(principal, id);
    const decision = {
      status: 'rejected' as const,
      decidedBy: principal.agent,
      reason,
      version: 0,
    };
    if (!(await this.#d.store.decide(id, decision))) throw await this.#alreadyDecided(id);
    return this.#view({ ...draft, ...decision });
  }

  async #candidate(
    principal: Principal,
    input: JsonObject,
    required: (candidate: JsonObject) => readonly string[],
  ): Promise<JsonObject> {
    const kinds = this.#d.connectors;
    const candidate = completeEnvelope(input, scopeOf(principal, {}), kinds);
    checkPartial(candidate, required(candidate), kinds);
    const metadata = candidate.metadata as JsonObject;
    const scope = scopeOf(principal, {
      tenant: metadata.tenant as string,
      environment: metadata.environment as string,
    });
    const spec = (candidate.spec ?? {}) as JsonObject;
    const kind = typeof spec.type === 'string' ? kinds.find(spec.type) : undefined;
    const uses = kind?.credentialRefs(spec as never) ?? [];
    assertCredentialsInScope(this.#d.credentialNamespaces, scope, uses);
    await this.#d.registry.assertEgress(scope, { spec });
    return candidate;
  }

  /** The egress guard of a checked candidate's scope. */
  #egressOf(candidate: JsonObject): EgressGuard {
    const metadata = candidate.metadata as JsonObject;
    return this.#d.registry.egressGuard({
      tenant: metadata.tenant as string,
      environment: metadata.environment as string,
    });
  }

  async #discoverForDraft(candidate: JsonObject): Promise<DiscoveryOutcome> {
    const target = discoveryTarget(candidate, this.#d.connectors);
    if (target === undefined) {
      const needs = discoveryPaths(candidate, this.#d.connectors).join(', ');
      return {
        skipped: `Nothing was discovered: the descriptor does not name ${needs} yet.`,
      };
    }
    try {
      const connector = this.#d.connectors.get(target.kind.type);
      return {
        schema: await connector.discover(target.spec, this.#d.credentials, {
          egress: this.#egressOf(candidate),
        }),
      };
    } catch (err) {
      if (!isTollgateError(err)) throw err;
      return {
        failed: `Discovery failed (${err.code}): ${err.message} The declared schema is kept as is.`,
      };
    }
  }

  /**
   * The caller's pending, unexpired draft. Another scope's draft, an unknown id and a draft the
   * sweeper removed all read the same (expired or unknown), so nothing about them leaks.
   */
  async #pending(principal: Principal, id: string): Promise<DraftRecord> {
    const draft = await this.#d.store.get(id);
    if (
      draft === undefined ||
      draft.tenant !== principal.tenant ||
      draft.environment !== principal.environment
    ) {
      throw new TollgateError(
        'NOT_FOUND',
        `Draft ${id} does not exist or expired long ago; propose the resource again with Draft.`,
      );
    }
    const view = this.#view(draft);
    if (view.status === 'expired') {
      throw preconditionFailed(
        `Draft ${id} expired at ${draft.expiresAt.toISOString()}; propose the resource again with Draft.`,
        'draft_id',
      );
    }
    if (view.status !== 'pending')
      throw preconditionFailed(`Draft ${id} was already ${view.status}.`, 'draft_id');
    return draft;
  }

  async #alreadyDecided(id: string): Promise<TollgateError> {
    const now = await this.#d.store.get(id);
    return preconditionFailed(`Draft ${id} was already ${now?.status ?? 'decided'}.`, 'draft_id');
  }

  #view(draft: DraftRecord): DraftView {
    const expired =
      draft.status === 'pending' && this.#clock().getTime() >= draft.expiresAt.getTime();
    return { ...draft, status: expired ? 'expired' : draft.status };
  }
}

/** The draft's descriptor with `edits` merged in; name, tenant and environment stay fixed. */
function editDraft(draft: DraftRecord, edits: JsonObject): JsonObject {
  const edited = applyMergePatch(draft.descriptor, edits) as JsonObject;
  const before = draft.descriptor.metadata as JsonObject | undefined;
  const after = (typeof edited.metadata === 'object' ? edited.metadata : {}) as JsonObject | null;
  for (const key of ['name', 'tenant', 'environment'] as const) {
    if (!sameValue(after?.[key], before?.[key])) {
      const message = `a draft's ${key} cannot be edited; draft the resource again instead`;
      throw new TollgateError('INVALID_ARGUMENT', `edits.metadata.${key}: ${message}`, {
        details: [{ path: `edits.metadata.${key}`, message }],
      });
    }
  }
  return edited;
}

function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
