import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { CallResultSchema } from '@tollgate/contracts/call/v1';
import type { CallResult } from '@tollgate/contracts/call/v1';
import type { Principal } from '@tollgate/core';
import type { KV } from '@tollgate/kit';

/** Who may read a stored result back: the principal that made the call. */
type Owner = Pick<Principal, 'tenant' | 'agent' | 'environment'>;

/**
 * Kept with an `accepted` result: what it takes to settle the call if its executor vanishes
 * before it stores the outcome.
 */
export interface AcceptedCall {
  /** The call's deadline, epoch ms: no executor runs it past this. */
  deadline: number;
  /** `read`, `write` or `destructive`. */
  operationClass: string;
  sessionId: string;
  tool: string;
  traceId: string;
}

export interface StoredResult {
  result: CallResult;
  accepted?: AcceptedCall;
}

/**
 * Results of parked and accepted calls, kept for polling (`tollgate_call_results`, key
 * `<call id>`, TTL 24 h). A result is only ever given back to the principal that made the call.
 */
export class CallResults {
  readonly #kv: KV;

  constructor(kv: KV) {
    this.#kv = kv;
  }

  async put(owner: Owner, result: CallResult, accepted?: AcceptedCall): Promise<void> {
    const value = {
      tenant: owner.tenant,
      agent: owner.agent,
      environment: owner.environment,
      result: Buffer.from(toBinary(CallResultSchema, result)).toString('base64'),
      ...(accepted ? { accepted } : {}),
    };
    await this.#kv.put(result.callId, JSON.stringify(value));
  }

  /** The stored result of `callId` when `reader` made that call; undefined otherwise. */
  async get(callId: string, reader: Owner): Promise<StoredResult | undefined> {
    const entry = await this.#kv.get(callId);
    if (entry === null || entry.operation !== 'PUT') return undefined;
    let stored: Record<string, unknown>;
    try {
      stored = JSON.parse(new TextDecoder().decode(entry.value)) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    if (
      stored.tenant !== reader.tenant ||
      stored.agent !== reader.agent ||
      stored.environment !== reader.environment ||
      typeof stored.result !== 'string'
    )
      return undefined;
    let result: CallResult;
    try {
      result = fromBinary(CallResultSchema, Buffer.from(stored.result, 'base64'));
    } catch {
      return undefined;
    }
    const accepted = acceptedOf(stored.accepted);
    return accepted ? { result, accepted } : { result };
  }
}

function acceptedOf(value: unknown): AcceptedCall | undefined {
  const a = value as Partial<AcceptedCall> | null | undefined;
  if (
    typeof a?.deadline !== 'number' ||
    typeof a.operationClass !== 'string' ||
    typeof a.sessionId !== 'string' ||
    typeof a.tool !== 'string' ||
    typeof a.traceId !== 'string'
  )
    return undefined;
  return {
    deadline: a.deadline,
    operationClass: a.operationClass,
    sessionId: a.sessionId,
    tool: a.tool,
    traceId: a.traceId,
  };
}
