/**
 * `TOLLGATE_EGRESS_RULES`, read the same way by the registry (checked at apply, draft and
 * discover) and the executor (checked again before connecting), and the check with name
 * resolution that both run on a kind's endpoints. Unset means core's default: public
 * addresses only; `unrestricted` turns the check off, loudly.
 */
import { lookup } from 'node:dns/promises';
import {
  DEFAULT_EGRESS_RULES,
  checkEgressAddress,
  checkEgressTarget,
  egressTarget,
  parseEgressRules,
} from '@tollgate/core';
import type { EgressRules, EgressScope, EndpointUse } from '@tollgate/core';
import type { ConfigField } from '../config/config.js';
import type { Logger } from '../log/logger.js';

export const egressRulesConfig: ConfigField<EgressRules> = {
  env: 'TOLLGATE_EGRESS_RULES',
  description:
    'destinations resources may connect to: <tenant>/<environment>=<destination>,… entries separated by ; (* for any; destinations public, host, *.domain, address or CIDR, each with :port optionally), or "unrestricted"',
  parse: parseEgressRules,
  default: parseEgressRules(DEFAULT_EGRESS_RULES),
};

/** Logs the rules in force; with `unrestricted`, a warning that resources may reach anything. */
export function announceEgressRules(logger: Logger, rules: EgressRules): void {
  if (rules.unrestricted) {
    logger.warn(
      { egressRules: 'unrestricted' },
      'EGRESS RULES ARE OFF (TOLLGATE_EGRESS_RULES=unrestricted): a resource of ANY tenant may connect to ANY address, including loopback, private networks and cloud metadata. Use this only on a single-tenant development machine.',
    );
    return;
  }
  logger.info(
    {
      egressRules: rules.entries.map(
        (e) => `${e.tenant}/${e.environment}=${e.destinations.map((d) => d.text).join(',')}`,
      ),
    },
    'resource endpoints are confined to the egress rules',
  );
}

/** An endpoint the rules refuse, and why (never what its host resolved to). */
export interface EgressRefusal {
  /** Descriptor path of the endpoint, e.g. `spec.connection.endpoint`. */
  path: string;
  url: string;
  problem: string;
  /** The destinations the scope may reach, as configured. */
  expected: string[];
}

/** Resolves a host to all its addresses; a failure is an empty list. */
export type AddressLookup = (host: string) => Promise<string[]>;

const systemLookup: AddressLookup = async (host) => {
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return [];
  }
};

/**
 * The first endpoint of `uses` the scope's rules refuse, or undefined when all may be reached.
 * A host name allowed by name is resolved and every address checked: one address outside the
 * rules refuses the endpoint, and a name that does not resolve reads the same as one that
 * resolves outside them.
 */
export async function egressRefusal(
  rules: EgressRules,
  scope: EgressScope,
  uses: readonly EndpointUse[],
  resolve: AddressLookup = systemLookup,
): Promise<EgressRefusal | undefined> {
  if (rules.unrestricted) return undefined;
  for (const { path, url } of uses) {
    const target = egressTarget(url);
    if (target === undefined)
      return { path, url, problem: 'it names no host to connect to', expected: [] };
    const verdict = checkEgressTarget(rules, scope, target);
    if (verdict.allowed === false)
      return { path, url, problem: verdict.problem, expected: verdict.expected };
    if (verdict.allowed === true) continue;
    const addresses = await resolve(target.host);
    const refusals = addresses.map((a) => checkEgressAddress(rules, scope, target, a));
    const refused =
      addresses.length === 0
        ? checkEgressAddress(rules, scope, target, '')
        : refusals.find((v) => v.allowed !== true);
    if (refused !== undefined && refused.allowed === false)
      return { path, url, problem: refused.problem, expected: refused.expected };
  }
  return undefined;
}
