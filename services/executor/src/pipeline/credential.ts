import { TollgateError, isTollgateError } from '@tollgate/core';
import type { Credential, CredentialResolver, ResourceDescriptor } from '@tollgate/core';

/**
 * Resolves the resource's `credentialRef` just in time (the resolver caches briefly) and hands
 * the connector a resolver bound to that one credential, so the secret is read once per call
 * and lives only as long as the call. A failure names the reference scheme, never the secret.
 */
export async function resolveCredential(
  credentials: CredentialResolver,
  descriptor: ResourceDescriptor,
): Promise<CredentialResolver> {
  const ref = descriptor.spec.connection.credentialRef;
  if (ref === undefined) return async () => ({ kind: 'none' });
  let credential: Credential;
  try {
    credential = await credentials(ref);
  } catch (err) {
    const scheme = /^([a-z]+):\/\//.exec(ref)?.[1] ?? 'unknown';
    throw new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      isTollgateError(err) && err.code === 'CREDENTIAL_UNAVAILABLE'
        ? err.message
        : `The credential of ${descriptor.metadata.name} (${scheme}://…) could not be resolved.`,
    );
  }
  return async (asked) => {
    if (asked !== ref)
      throw new TollgateError('CREDENTIAL_UNAVAILABLE', 'Unexpected credential reference.');
    return credential;
  };
}
