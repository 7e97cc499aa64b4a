import { expect } from 'vitest';
import { isRpcError } from '@tollgate/contracts';
import type { RpcError } from '@tollgate/contracts';

/** The `RpcError` a call rejected with (fails the test when it resolved). */
export async function rpcError(call: Promise<unknown>): Promise<RpcError> {
  try {
    await call;
  } catch (err) {
    if (isRpcError(err)) return err;
    throw err;
  }
  expect.fail('expected the call to fail');
}
