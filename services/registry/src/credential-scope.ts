/**
 * The registry's side of credential namespaces: a descriptor may only name a credential
 * reference inside the namespace of its own tenant and environment (core's rules, configured by
 * `TOLLGATE_CREDENTIAL_NAMESPACES`). Checked before anything is stored, projected or discovered,
 * so another tenant's secret is never fetched on a descriptor's behalf.
 */
import {
  TollgateError,
  checkCredentialNamespace,
  describeCredentialPrefixes,
} from '@tollgate/core';
import type { CredentialNamespaces, CredentialUse } from '@tollgate/core';
import type { Scope } from './scope.js';

/**
 * INVALID_ARGUMENT at the reference's path when one of `uses` (the references a descriptor's
 * kind says it names) is outside `scope`'s namespace: the message quotes the reference (never
 * anything else of the descriptor; `version` says which stored version named it) and lists the
 * prefixes the scope may use. A descriptor without a reference needs no credential.
 */
export function assertCredentialsInScope(
  namespaces: CredentialNamespaces,
  scope: Scope,
  uses: readonly CredentialUse[],
  version?: number,
): void {
  for (const { path, ref } of uses) {
    const verdict = checkCredentialNamespace(namespaces, scope, ref);
    if (verdict.allowed) continue;
    const expected = `a reference starting with ${describeCredentialPrefixes(verdict.expected)}`;
    const subject = `${JSON.stringify(ref)}${version === undefined ? '' : ` (of version ${version})`}`;
    const message = `${subject} is refused: ${verdict.problem}; expected ${expected}`;
    throw new TollgateError('INVALID_ARGUMENT', `${path}: ${message}.`, {
      details: [{ path, message, expected, found: ref }],
    });
  }
}
