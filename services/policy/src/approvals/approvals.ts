import { TollgateError } from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import { decodePageToken, encodePageToken, tenantOf } from '@tollgate/kit';
import type { EventPublisher, Logger } from '@tollgate/kit';
import { ROLES } from '../declarations/access.js';
import type { AccessControl } from '../declarations/access.js';
import { forbidden, notFound } from '../errors.js';
import { announceDecision } from '../events.js';
import type { ApprovalStore, PendingCursor } from '../store/approvals.js';
import { approverName, decided } from './record.js';
import type { ApprovalDecision, ApprovalOutcome, ApprovalRecord } from './record.js';

export interface ApprovalsDeps {
  store: ApprovalStore;
  access: AccessControl;
  events: EventPublisher;
  logger: Logger;
  clock?: () => Date;
}

export interface PendingListQuery {
  tenant?: string | undefined;
  resource: string;
  pageSize: number;
  pageToken: string;
}

/** What recording an `approval.requested` did. */
export type RecordOutcome = 'recorded' | 'duplicate' | { conflict: string };

/** Approvals older than this without a stored `approval.decided` are announced again by a sweep. */
const REPUBLISH_AFTER_MS = 5_000;
const SWEEP_BATCH = 100;

/**
 * Approvals of parked calls (the policy service's half of the approval protocol in
 * docs/services.md). An approval is settled once — approved, rejected or expired — by whoever
 * wins the store's compare-and-set; each settlement publishes `approval.decided`. Only callers
 * whose Agent holds the `approver` role in the approval's tenant may decide, never on their own
 * request (same agent and user, or the same user through any agent), and never after expiry.
 */
export class Approvals {
  readonly #deps: ApprovalsDeps;
  readonly #clock: () => Date;

  constructor(deps: ApprovalsDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? (() => new Date());
  }

  /** Records an approval from `approval.requested`; redelivery of the same request is a no-op. */
  async record(record: ApprovalRecord): Promise<RecordOutcome> {
    const outcome = await this.#deps.store.insert(record);
    if ('inserted' in outcome) return 'recorded';
    const { existing } = outcome;
    const same =
      existing.tenant === record.tenant &&
      existing.callId === record.callId &&
      existing.argumentsHash === record.argumentsHash;
    return same
      ? 'duplicate'
      : { conflict: `approval id ${record.id} is already recorded for another call` };
  }

  async listPending(
    principal: Principal,
    query: PendingListQuery,
  ): Promise<{ records: ApprovalRecord[]; nextPageToken: string }> {
    const tenant = tenantOf(principal, query.tenant);
    await this.#deps.access.require(
      principal,
      [ROLES.approver, ROLES.admin, ROLES.viewer],
      'list approvals',
    );
    const bound = { pending: tenant, resource: query.resource };
    const after = decodePageToken(query.pageToken, bound, isCursor);
    const page = await this.#deps.store.pendingPage({
      tenant,
      resource: query.resource,
      now: this.#clock(),
      after,
      limit: query.pageSize,
    });
    const last = page.records.at(-1);
    const cursor = last && { requestedAt: last.requestedAt.getTime(), id: last.id };
    return {
      records: page.records,
      nextPageToken: page.more && cursor ? encodePageToken(cursor, bound) : '',
    };
  }

  /** One approval: for approvers, admins and viewers of its tenant, and for the principal that asked. */
  async get(principal: Principal, id: string): Promise<ApprovalRecord> {
    const record = await this.#find(principal, id);
    if (!isOwn(principal, record))
      await this.#deps.access.require(
        principal,
        [ROLES.approver, ROLES.admin, ROLES.viewer],
        'read approvals',
      );
    return record;
  }

  approve(principal: Principal, id: string, reason: string): Promise<ApprovalRecord> {
    return this.#decide(principal, id, 'approved', reason);
  }

  reject(principal: Principal, id: string, reason: string): Promise<ApprovalRecord> {
    return this.#decide(principal, id, 'rejected', reason);
  }

  /** Expires overdue approvals and re-announces decisions whose event was not stored. */
  async sweep(): Promise<{ expired: number; republished: number }> {
    const { store, logger } = this.#deps;
    const now = this.#clock();
    let expired = 0;
    for (const record of await store.overdue(now, SWEEP_BATCH)) {
      if (await this.#settle(record, expiry(now))) expired++;
    }
    let republished = 0;
    const before = new Date(now.getTime() - REPUBLISH_AFTER_MS);
    for (const id of await store.unpublished(before, SWEEP_BATCH)) {
      const record = await store.get(id);
      if (record?.decision !== undefined && (await this.#announce(record))) republished++;
    }
    if (expired + republished > 0) logger.info({ expired, republished }, 'approvals swept');
    return { expired, republished };
  }

  async #decide(
    principal: Principal,
    id: string,
    status: 'approved' | 'rejected',
    reason: string,
  ): Promise<ApprovalRecord> {
    const record = await this.#find(principal, id);
    await this.#deps.access.require(principal, [ROLES.approver], 'decide approvals');
    if (record.status !== 'pending') throw alreadySettled(record);
    if (isOwn(principal, record))
      throw forbidden(
        `"${approverName(principal)}" may not decide approval "${id}": it is its own request.`,
      );
    const now = this.#clock();
    if (now.getTime() >= record.expiresAt.getTime()) {
      const settled = await this.#settle(record, expiry(now));
      throw alreadySettled(settled ?? (await this.#find(principal, id)));
    }
    const decision: ApprovalDecision = {
      status,
      decidedBy: approverName(principal),
      reason,
      decidedAt: now,
    };
    const settled = await this.#settle(record, decision);
    if (settled === undefined) throw alreadySettled(await this.#find(principal, id));
    this.#deps.logger.info(
      { approval: id, tenant: record.tenant, status, decidedBy: decision.decidedBy },
      'approval decided',
    );
    return settled;
  }

  /** The approval, if it exists in the caller's tenant (NOT_FOUND otherwise, whoever owns it). */
  async #find(principal: Principal, id: string): Promise<ApprovalRecord> {
    const record = await this.#deps.store.get(id);
    if (record === undefined || record.tenant !== principal.tenant)
      throw notFound(`Approval "${id}" does not exist.`);
    return record;
  }

  /** Settles and announces; undefined when someone settled it first. */
  async #settle(
    record: ApprovalRecord,
    decision: ApprovalDecision,
  ): Promise<ApprovalRecord | undefined> {
    if (!(await this.#deps.store.settle(record, decision))) return undefined;
    const result = decided(record, decision);
    await this.#announce(result);
    return result;
  }

  /** Publishes `approval.decided` and marks it; a failure is left to the next sweep. */
  async #announce(record: ApprovalRecord): Promise<boolean> {
    try {
      await announceDecision(this.#deps.events, record);
      await this.#deps.store.markPublished(record.id, this.#clock());
      return true;
    } catch (err) {
      this.#deps.logger.warn(
        { approval: record.id, err: { message: (err as Error).message } },
        'approval.decided not published; the sweeper retries',
      );
      return false;
    }
  }
}

/** The caller made the request: same agent and user, or the same human through any agent. */
export function isOwn(principal: Principal, record: ApprovalRecord): boolean {
  const user = principal.user ?? '';
  if (user !== '' && user === record.principal.user) return true;
  return principal.agent === record.principal.agent && user === record.principal.user;
}

function expiry(now: Date): ApprovalDecision {
  return { status: 'expired', decidedBy: '', reason: 'expired before a decision', decidedAt: now };
}

const SETTLED_CODES: Record<ApprovalOutcome, 'APPROVAL_REJECTED' | 'APPROVAL_EXPIRED' | undefined> =
  { approved: undefined, rejected: 'APPROVAL_REJECTED', expired: 'APPROVAL_EXPIRED' };

function alreadySettled(record: ApprovalRecord): TollgateError {
  const decision = record.decision;
  const when = decision ? ` at ${decision.decidedAt.toISOString()}` : '';
  const by = decision?.decidedBy ? ` by "${decision.decidedBy}"` : '';
  const status = record.status === 'pending' ? 'approved' : record.status;
  const message = `Approval "${record.id}" was already ${status}${by}${when}; an approval is decided once.`;
  const code = SETTLED_CODES[status];
  if (code === undefined)
    return new TollgateError('FAILED_PRECONDITION', message, {
      details: [{ path: 'id', message }],
    });
  if (code === 'APPROVAL_EXPIRED')
    return new TollgateError(
      code,
      `Approval "${record.id}" expired at ${record.expiresAt.toISOString()}; the call must be made again.`,
      { details: [{ path: 'id', message: 'expired' }] },
    );
  return new TollgateError(code, message, { details: [{ path: 'id', message: 'rejected' }] });
}

function isCursor(value: unknown): value is PendingCursor {
  const v = value as Partial<PendingCursor> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    Number.isSafeInteger(v.requestedAt) &&
    typeof v.id === 'string'
  );
}
