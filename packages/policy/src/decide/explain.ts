import type { Context, EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import type { CedarEngine } from './engine.js';
import type { LoadedBundle, PolicySetView } from './loaded-bundle.js';
import type { DecisionRequest } from './request.js';
import type { PolicyDecision, TracedPolicy } from './types.js';

/** What the trace of an evaluated request is built from. */
export interface TraceInput {
  loaded: LoadedBundle;
  engine: CedarEngine;
  request: DecisionRequest;
  set: PolicySetView;
  context: Context;
  entities: EntityJson[];
  decision: PolicyDecision;
}

/**
 * Evaluates every policy of the resource × action set on its own, so an operator sees which ones
 * matched (not only the determining ones) and which failed, plus the Cedar text of the
 * determining policies.
 */
export function tracePolicies(input: TraceInput): {
  policies: TracedPolicy[];
  determining: { id: string; cedar: string }[];
  errors: string[];
} {
  const { loaded, engine, request, set, context, entities, decision } = input;
  const errors: string[] = [];
  const policies = set.policies.map((policy): TracedPolicy => {
    const base = {
      id: policy.id,
      effect: policy.effect,
      kind: policy.kind,
      source: policy.source,
      determining: decision.policyIds.includes(policy.id),
    };
    try {
      const answer = engine.isAuthorized({
        principal: { type: 'Agent', id: request.agent },
        action: { type: 'Action', id: request.action },
        resource: { type: 'Resource', id: request.resource },
        context,
        entities: [
          ...entities.filter((e) => (e.uid as { type: string }).type !== 'Action'),
          ...loaded.actionEntities,
        ],
        policies: { staticPolicies: { [policy.id]: policy.cedar } },
      });
      if (answer.type === 'failure')
        throw new Error(answer.errors.map((e) => e.message).join('; '));
      const failure = answer.response.diagnostics.errors[0];
      if (failure) {
        errors.push(`${policy.id}: ${failure.error.message}`);
        return { ...base, matched: 'error', error: failure.error.message };
      }
      return { ...base, matched: answer.response.diagnostics.reason.includes(policy.id) };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      errors.push(`${policy.id}: ${message}`);
      return { ...base, matched: 'error', error: message };
    }
  });
  const determining = set.policies
    .filter((p) => decision.policyIds.includes(p.id))
    .map((p) => ({ id: p.id, cedar: p.cedar }));
  return { policies, determining, errors };
}
