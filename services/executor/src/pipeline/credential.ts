import {
  TollgateError,
  checkCredentialNamespace,
  describeCredentialPrefixes,
  isTollgateError,
} from '@tollgate/core';
import type {
  Credential,
  CredentialNamespaces,
  CredentialResolver,
  CredentialScope,
  ResourceDescriptor,
} from '@tollgate/core';
import type { Logger } from '@tollgate/kit';

/** What the credential stage needs besides the resource. */
export interface CredentialStageDeps {
  credentials: CredentialResolver;
  /** Which references each tenant's resources may name (the registry checked them at apply). */
  namespaces: CredentialNamespaces;
  logger: Logger;
}

/**
 * Resolves the resource's `credentialRef` just in time (the resolver caches briefly) and hands
 * the connector a resolver bound to that one credential, so the secret is read once per call
 * and lives only as long as the call. A failure names the reference scheme, never the secret.
 *
 * First, and fail closed, the reference must lie in the credential namespace of the scope the
 * call acts in: the registry refuses other references at apply, but the rules may have changed
 * since, or the KV entry been written by something else. Then nothing is resolved and nothing
 * reaches the upstream; the call fails with CREDENTIAL_UNAVAILABLE (an operator must act).
 */
export async function resolveCredential(
  deps: CredentialStageDeps,
  descriptor: ResourceDescriptor,
  scope: CredentialScope,
): Promise<CredentialResolver> {
  const ref = descriptor.spec.connection.credentialRef;
  if (ref === undefined) return async () => ({ kind: 'none' });
  const scheme = /^([a-z]+):\/\//.exec(ref)?.[1] ?? 'unknown';
  const verdict = namespaceVerdict(deps.namespaces, descriptor, scope, ref);
  if (!verdict.allowed) {
    deps.logger.warn(
      { resource: descriptor.metadata.name, ...scope, scheme },
      'credential reference outside the namespace of the tenant and environment: refused before resolving (the rules changed since it was applied, or the resource entry was not written by the registry)',
    );
    const message = `${verdict.problem}, so it was not resolved; an operator must move the credential into the namespace`;
    throw new TollgateError(
      'CREDENTIAL_UNAVAILABLE',
      `The credential reference of ${descriptor.metadata.name} (${scheme}://…) is refused: ${message}.`,
      {
        details: [
          {
            path: 'spec.connection.credentialRef',
            message,
            expected: `a reference starting with ${describeCredentialPrefixes(verdict.expected)}`,
          },
        ],
      },
    );
  }
  let credential: Credential;
  try {
    credential = await deps.credentials(ref);
  } catch (err) {
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

type Verdict = ReturnType<typeof checkCredentialNamespace>;

/**
 * Verdicts by rule set and resource version (both immutable objects): checking a reference
 * parses it and expands every rule, ~7 µs, which a steady call need not pay again.
 */
const verdicts = new WeakMap<
  CredentialNamespaces,
  WeakMap<ResourceDescriptor, Map<string, Verdict>>
>();

function namespaceVerdict(
  namespaces: CredentialNamespaces,
  descriptor: ResourceDescriptor,
  scope: CredentialScope,
  ref: string,
): Verdict {
  let byDescriptor = verdicts.get(namespaces);
  if (byDescriptor === undefined) verdicts.set(namespaces, (byDescriptor = new WeakMap()));
  let byScope = byDescriptor.get(descriptor);
  if (byScope === undefined) byDescriptor.set(descriptor, (byScope = new Map()));
  const key = `${scope.tenant}\u0000${scope.environment}`;
  let verdict = byScope.get(key);
  if (verdict === undefined) {
    verdict = checkCredentialNamespace(namespaces, scope, ref);
    byScope.set(key, verdict);
  }
  return verdict;
}
