import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { CallResultSchema } from '@tollgate/contracts/call/v1';
import type { CallResult } from '@tollgate/contracts/call/v1';
import type { Principal } from '@tollgate/core';
import type { KV } from '@tollgate/kit';

/** Who may read a stored result back: the principal that made the call. */
type Owner = Pick<Principal, 'tenant' | 'agent' | 'environment'>;

/**
 * Results of parked and accepted calls, kept for polling (`tollgate_call_results`, key
 * `<call id>`, TTL 24 h). A result is only ever given back to the principal that made the call.
 */
export class CallResults {
  readonly #kv: KV;

  constructor(kv: KV) {
    this.#kv = kv;
  }

  async put(owner: Owner, result: CallResult): Promise<void> {
    const value = {
      tenant: owner.tenant,
      agent: owner.agent,
      environment: owner.environment,
      result: Buffer.from(toBinary(CallResultSchema, result)).toString('base64'),
    };
    await this.#kv.put(result.callId, JSON.stringify(value));
  }

  /** The stored result of `callId` when `reader` made that call; undefined otherwise. */
  async get(callId: string, reader: Owner): Promise<CallResult | undefined> {
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
    try {
      return fromBinary(CallResultSchema, Buffer.from(stored.result, 'base64'));
    } catch {
      return undefined;
    }
  }
}
