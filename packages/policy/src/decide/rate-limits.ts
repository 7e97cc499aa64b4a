import { rateLimitCounterKey } from '../limits/rate-limit.js';
import { matchesAction, parseActionPattern } from '../model/actions.js';
import type { LoadedBundle } from './loaded-bundle.js';
import { appliesToPrincipal } from './reasons.js';
import { checkPrincipal } from './request.js';
import type { ApplicableRateLimit, Principal } from './types.js';

/**
 * The bundle's rate limits that cover `principal` (by agent, or by a role the bundle gives it)
 * calling `tool` (`orders_search` or `orders.search`). Nothing for unknown agents, other
 * tenants or names that are not tools of the bundle's resources.
 */
export function applicableRateLimits(
  loaded: LoadedBundle,
  principal: Principal,
  tool: string,
): ApplicableRateLimit[] {
  const who = checkPrincipal(principal);
  const target = toolTarget(loaded, tool);
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

/** The resource and operation a tool name (or `<resource>.<operation>`) stands for. */
function toolTarget(
  loaded: LoadedBundle,
  tool: string,
): { resource: string; operation: string } | undefined {
  const dot = tool.lastIndexOf('.');
  if (dot < 0) return loaded.tools.get(tool);
  const resource = tool.slice(0, dot);
  const operation = tool.slice(dot + 1);
  const view = loaded.resources.get(resource);
  return view?.operations.some((op) => op.name === operation) === true
    ? { resource, operation }
    : undefined;
}
