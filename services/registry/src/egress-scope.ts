/**
 * The registry's side of egress rules: every endpoint a descriptor's kind says it connects to
 * must be a destination the operator allows for the descriptor's tenant and environment
 * (`TOLLGATE_EGRESS_RULES`). Checked before anything is stored, projected or discovered, so the
 * registry never connects (or sends a credential) to an address the tenant may not reach.
 */
import { TollgateError, describeEgressDestinations } from '@tollgate/core';
import type { EgressRules, EndpointUse } from '@tollgate/core';
import { egressRefusal } from '@tollgate/kit';
import type { AddressLookup } from '@tollgate/kit';
import type { Scope } from './scope.js';

/**
 * INVALID_ARGUMENT at the endpoint's path when one of `uses` is outside `scope`'s rules: the
 * message quotes the URL (the descriptor's own text) and the allowed destinations, and says the
 * same whether a name did not resolve or resolved somewhere not allowed.
 */
export async function assertEgressAllowed(
  rules: EgressRules,
  scope: Scope,
  uses: readonly EndpointUse[],
  resolve?: AddressLookup,
  version?: number,
): Promise<void> {
  const refusal = await egressRefusal(rules, scope, uses, resolve);
  if (refusal === undefined) return;
  const { path, url, problem } = refusal;
  const expected = `a destination among ${describeEgressDestinations(refusal.expected)}`;
  const subject = `${JSON.stringify(url)}${version === undefined ? '' : ` (of version ${version})`}`;
  const message = `${subject} is refused: ${problem}; expected ${expected}`;
  throw new TollgateError('INVALID_ARGUMENT', `${path}: ${message}.`, {
    details: [{ path, message, expected, found: url }],
  });
}
