import type {
  CompiledRequest,
  Connector,
  CredentialResolver,
  EgressGuard,
  ResourceDescriptor,
  UpstreamResponse,
} from '@tollgate/core';

/** What one upstream execution may use. */
export interface ExecuteInput {
  descriptor: ResourceDescriptor;
  /** Bound to the credential resolved for this call. */
  credentials: CredentialResolver;
  /** The call's deadline, epoch ms: no attempt or backoff runs past it. */
  deadline: number;
  /** The egress rules of the call's scope, for kinds that check the address they connect to. */
  egress: EgressGuard;
}

/**
 * Sends the compiled request with the resource's per-attempt timeout inside the call's
 * deadline. The connector retries reads only, on retryable failures (connection errors, 429,
 * 502/503/504) with backoff and jitter; a write gets exactly one attempt and an unclear end is
 * reported as `WRITE_OUTCOME_UNKNOWN`, never repeated blindly.
 */
export async function executeCall(
  connector: Connector,
  request: CompiledRequest,
  input: ExecuteInput,
): Promise<UpstreamResponse> {
  return connector.execute(request, {
    descriptor: input.descriptor,
    credentials: input.credentials,
    deadline: input.deadline,
    egress: input.egress,
  });
}
