import { TollgateError } from '@tollgate/core';
import type { Principal, PublishedResource } from '@tollgate/core';
import type { ResourceCatalog } from '@tollgate/kit';

/**
 * The resource a call names, in the caller's own tenant and environment and of the kind the
 * subject is for. Anything else is `NOT_FOUND` with the same words, so a caller cannot learn
 * whether another tenant or environment has a resource of that name.
 */
export function resolveResource(
  catalog: ResourceCatalog,
  principal: Principal,
  kind: string,
  name: string,
): PublishedResource {
  const resource = catalog.get(principal, name);
  if (resource === undefined || resource.descriptor.spec.type !== kind) {
    throw new TollgateError(
      'NOT_FOUND',
      `No resource named ${JSON.stringify(name.slice(0, 64))} is available to you; list tools to see what is.`,
    );
  }
  return resource;
}
