import { TollgateError, describeEgressDestinations } from '@tollgate/core';
import type { EgressRules, EgressScope, KindRegistry, ResourceDescriptor } from '@tollgate/core';
import { egressRefusal } from '@tollgate/kit';
import type { AddressLookup, Logger } from '@tollgate/kit';

/** What the egress stage needs besides the resource. */
export interface EgressStageDeps {
  kinds: KindRegistry;
  /** Which destinations each tenant's resources may connect to (the registry checked at apply). */
  rules: EgressRules;
  /** How endpoint host names are resolved (default: the system's resolver). */
  resolveHost?: AddressLookup;
  logger: Logger;
}

/**
 * Checks, before the credential is resolved or anything connects, that every endpoint of the
 * resource is a destination the egress rules allow for the scope the call acts in: the
 * registry refused others at apply, but rules change, names resolve differently over time, and
 * the KV entry may have been written by something else. A refusal is POLICY_DENIED that names
 * the endpoint's path, never what its host resolved to; an operator must act.
 */
export async function checkEgress(
  deps: EgressStageDeps,
  descriptor: ResourceDescriptor,
  scope: EgressScope,
): Promise<void> {
  const uses = deps.kinds.get(descriptor.spec.type).endpoints(descriptor.spec);
  const refusal = await egressRefusal(deps.rules, scope, uses, deps.resolveHost);
  if (refusal === undefined) return;
  deps.logger.warn(
    { resource: descriptor.metadata.name, ...scope, path: refusal.path },
    'resource endpoint outside the egress rules of the tenant and environment: refused before connecting',
  );
  const message = `${refusal.problem}, so nothing was sent; an operator must change the resource or the egress rules`;
  throw new TollgateError(
    'POLICY_DENIED',
    `The destination of ${descriptor.metadata.name} (${refusal.path}) is refused: ${message}.`,
    {
      details: [
        {
          path: refusal.path,
          message,
          expected: `a destination among ${describeEgressDestinations(refusal.expected)}`,
        },
      ],
    },
  );
}
