import type { Operation, OperationClass } from '@tollgate/core';
import type { KV } from '@tollgate/kit';
import type { SavedQueryUse } from '../call-trail.js';

/** A call waiting for a person's decision, with everything needed to run it later. */
export interface ParkedCall {
  callId: string;
  approvalId: string;
  sessionId: string;
  principal: {
    tenant: string;
    agent: string;
    environment: string;
    user?: string;
    tokenId?: string;
  };
  resource: { name: string; version: number; kind: string };
  tool: { name: string; version: string };
  operation: Operation;
  /** What the operation does to data (a parked record without one is treated as a write). */
  operationClass?: OperationClass;
  /** Validated arguments, exactly as the binding hash covers them. */
  args: Record<string, unknown>;
  /** `approvalBindingHash` of principal, resource version, tool and arguments. */
  bindingHash: string;
  idempotencyKey: string;
  policyIds: string[];
  requestedAt: number;
  expiresAt: number;
  /** The call's own budget, ms; the resumed run gets the same. */
  budgetMs: number;
  /** Trace id of the call that was parked; the resumed run reports under it. */
  traceId?: string;
  /**
   * The saved query the call came through, by identity only: the parked call holds the
   * expanded base-tool arguments, so resuming never looks the saved query up again.
   */
  savedQuery?: SavedQueryUse;
}

/** Claim on running a decided call, taken once across all executor instances. */
export interface ResumeClaim {
  claimedAt: number;
  /** Set once the call's outcome is stored and its `call.completed` event published. */
  recorded?: boolean;
}

import { OPERATION_CLASSES, isOperationName } from '@tollgate/core';

/**
 * Parked calls in `tollgate_parked_calls` (key `<call id>`, TTL = approval expiry + margin),
 * and the one-time claim (`done.<call id>`, taken with `kv.create`) that makes a decided call
 * run exactly once whichever instance receives the decision.
 */
export class ParkedCalls {
  readonly #kv: KV;

  constructor(kv: KV) {
    this.#kv = kv;
  }

  /** Stores a parked call; false when the call id is already taken. */
  async park(call: ParkedCall): Promise<boolean> {
    try {
      await this.#kv.create(call.callId, JSON.stringify(call));
      return true;
    } catch (err) {
      if (await this.#exists(call.callId)) return false;
      throw err;
    }
  }

  /** The parked call, or undefined when absent, expired from the bucket or unreadable. */
  async get(callId: string): Promise<ParkedCall | undefined> {
    const entry = await this.#kv.get(callId);
    if (entry === null || entry.operation !== 'PUT') return undefined;
    return readParked(entry.value);
  }

  /** Takes the claim to run `callId`; false when an instance already took it. */
  async claim(callId: string, now: number): Promise<boolean> {
    const claim: ResumeClaim = { claimedAt: now };
    try {
      await this.#kv.create(`done.${callId}`, JSON.stringify(claim));
      return true;
    } catch (err) {
      if (await this.#exists(`done.${callId}`)) return false;
      throw err;
    }
  }

  /** Marks the claimed call's outcome as recorded: later deliveries of its decision change nothing. */
  async markRecorded(callId: string, claimedAt: number): Promise<void> {
    const claim: ResumeClaim = { claimedAt, recorded: true };
    await this.#kv.put(`done.${callId}`, JSON.stringify(claim));
  }

  /** The claim on `callId`, if one was taken. */
  async claimOf(callId: string): Promise<ResumeClaim | undefined> {
    const entry = await this.#kv.get(`done.${callId}`);
    if (entry === null || entry.operation !== 'PUT') return undefined;
    try {
      const claim = JSON.parse(new TextDecoder().decode(entry.value)) as Partial<ResumeClaim>;
      return {
        claimedAt: typeof claim.claimedAt === 'number' ? claim.claimedAt : 0,
        recorded: claim.recorded === true,
      };
    } catch {
      return { claimedAt: 0 };
    }
  }

  async #exists(key: string): Promise<boolean> {
    const entry = await this.#kv.get(key);
    return entry !== null && entry.operation === 'PUT';
  }
}

/** Strictly reads a stored parked call back. */
export function readParked(bytes: Uint8Array): ParkedCall | undefined {
  let v: Partial<ParkedCall>;
  try {
    v = JSON.parse(new TextDecoder().decode(bytes)) as Partial<ParkedCall>;
  } catch {
    return undefined;
  }
  const strings = [v.callId, v.approvalId, v.sessionId, v.bindingHash, v.idempotencyKey];
  if (!strings.every((s) => typeof s === 'string')) return undefined;
  const p = v.principal;
  if (
    typeof p?.tenant !== 'string' ||
    typeof p.agent !== 'string' ||
    typeof p.environment !== 'string'
  )
    return undefined;
  const r = v.resource;
  if (typeof r?.name !== 'string' || !Number.isSafeInteger(r.version) || typeof r.kind !== 'string')
    return undefined;
  if (typeof v.tool?.name !== 'string' || typeof v.tool.version !== 'string') return undefined;
  if (!isOperationName(v.operation)) return undefined;
  if (v.operationClass !== undefined && !OPERATION_CLASSES.includes(v.operationClass))
    return undefined;
  if (typeof v.args !== 'object' || v.args === null || Array.isArray(v.args)) return undefined;
  if (!Array.isArray(v.policyIds)) return undefined;
  for (const n of [v.requestedAt, v.expiresAt, v.budgetMs])
    if (!Number.isSafeInteger(n)) return undefined;
  if (v.savedQuery !== undefined && !isSavedQueryUse(v.savedQuery)) return undefined;
  return v as ParkedCall;
}

function isSavedQueryUse(v: unknown): v is SavedQueryUse {
  if (typeof v !== 'object' || v === null) return false;
  const u = v as Record<string, unknown>;
  return (
    ['id', 'name', 'contentHash', 'tool', 'toolVersion', 'baseTool'].every(
      (k) => typeof u[k] === 'string',
    ) && Number.isSafeInteger(u['revision'])
  );
}
