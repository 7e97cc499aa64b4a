import { rateLimitCounterKey } from '../limits/rate-limit.js';
import { matchesAction, parseActionPattern, parseToolName } from '../model/actions.js';
import type { LoadedBundle } from './loaded-bundle.js';
import { appliesToPrincipal } from './reasons.js';
import { checkPrincipal } from './request.js';
import type { ApplicableRateLimit, Principal } from './types.js';

/**
 * The bundle's rate limits that cover `principal` (by agent, or by a role the bundle gives it)
 * calling `tool` (`es_orders_search` or `es_orders.search`). Nothing for unknown agents, other
 * tenants or names that are not tools.
 */
export function applicableRateLimits(
  loaded: LoadedBundle,
  principal: Principal,
  tool: string,
): ApplicableRateLimit[] {
  const who = checkPrincipal(principal);
  const target = parseToolName(tool);
  if (typeof who === 'string' || who.tenant !== loaded.bundle.tenant || !target) return [];
  const agent = loaded.agents.get(who.agent);
  if (!agent) return [];
  const covers = (action: string) => {
    const pattern = parseActionPattern(action);
    return typeof pattern !== 'string' && matchesAction(pattern, target.resource, target.operation);
  };
  return loaded.bundle.rateLimits
    .filter((limit) => appliesToPrincipal(limit.principals, who.agent, agent.roles))
    .filter((limit) => limit.actions.some(covers))
    .map((limit) => ({
      policyId: limit.policyId,
      requests: limit.requests,
      perSeconds: limit.perSeconds,
      counterKey: rateLimitCounterKey(
        who.tenant,
        who.agent,
        target.resource,
        target.operation,
        limit.policyId,
      ),
    }));
}
