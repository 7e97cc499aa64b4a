import type {
  CompiledRequest,
  Connector,
  PermissionSet,
  ResourceDescriptor,
  ShapedResult,
  UpstreamResponse,
} from '@tollgate/core';

/**
 * Reduces the upstream answer to what this principal may see: the connector checks the answer
 * against the expected shape first, then keeps visible fields only, applies redaction, the row
 * cap and the byte cap, and reports returned/total/truncated and a cursor for the next page.
 */
export function shapeCall(
  connector: Connector,
  request: CompiledRequest,
  upstream: UpstreamResponse,
  ctx: { descriptor: ResourceDescriptor; permissions: PermissionSet; maxBytes: number },
): ShapedResult {
  return connector.shape(request.operation, upstream, {
    descriptor: ctx.descriptor,
    permissions: ctx.permissions,
    request,
    maxBytes: ctx.maxBytes,
  });
}
