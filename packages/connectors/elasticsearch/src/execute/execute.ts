import { callerLimits, withAttempts } from '@tollgate/core';
import type { CompiledRequest, ExecuteContext, UpstreamResponse } from '@tollgate/core';

import { clientFor } from '../client.js';
import type { EsRequest } from '../native.js';
import { esAttempts } from './attempts.js';
import { resolveCredential } from './credential.js';
import { sendRequest } from './send.js';
import { inUpstreamSpan } from './span.js';
import { esSpec } from '../kind/spec.js';

/**
 * Sends a compiled request: credential resolved just in time, a pooled client per endpoint and
 * credential, the resource timeout inside the caller's deadline, retries for reads only.
 */
export async function executeRequest(
  request: CompiledRequest<EsRequest>,
  ctx: ExecuteContext,
): Promise<UpstreamResponse> {
  const started = Date.now();
  const { connection } = esSpec(ctx.descriptor);
  const credential = await resolveCredential(
    connection.credentialRef,
    ctx.credentials,
    request.resource,
  );
  const client = await clientFor(connection.endpoint, credential);
  const { value, attempts } = await withAttempts(
    {
      idempotent: request.idempotent,
      timeoutMs: request.timeoutMs,
      ...callerLimits(ctx),
    },
    esAttempts(request.resource, (options) =>
      inUpstreamSpan(request.native, connection.endpoint, () =>
        sendRequest(client, request.native, options),
      ),
    ),
  );
  return { status: value.status, body: value.body, attempts, latencyMs: Date.now() - started };
}
