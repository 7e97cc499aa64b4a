/**
 * Confirmation pins what the operator saw: before a version is saved, a kind that pins (its
 * `pinOnConfirm` hook) reads the live system once and records it in the spec — an upstream's
 * selected tool definitions by hash, so a later change is seen as one. Kinds without the hook,
 * and specs with nothing left to pin, pass unchanged without connecting.
 */
import type { ConnectorRegistry, CredentialResolver, ResourceDescriptor } from '@tollgate/core';

/** The descriptor as it is to be saved: pinned where its kind pins. */
export type PinOnConfirm = (descriptor: ResourceDescriptor) => Promise<ResourceDescriptor>;

export function pinOnConfirm(
  connectors: ConnectorRegistry,
  credentials: CredentialResolver,
): PinOnConfirm {
  return async (descriptor) => {
    const connector = connectors.get(descriptor.spec.type);
    const pinned = await connector.pinOnConfirm?.(descriptor.spec, credentials);
    return pinned === undefined ? descriptor : { ...descriptor, spec: pinned };
  };
}
