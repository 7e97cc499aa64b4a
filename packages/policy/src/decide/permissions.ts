import type {
  Context,
  EntityJson,
  PartialAuthorizationCall,
} from '@cedar-policy/cedar-wasm/nodejs';
import type { Operation } from '@tollgate/core';
import type { FieldAction } from '../model/schema.js';
import type { CedarEngine } from './engine.js';
import { preparedSet } from './loaded-bundle.js';
import type { AgentView, LoadedBundle, PolicySetView, ResourceView } from './loaded-bundle.js';
import type { DecisionRequest } from './request.js';
import type { OfferedPermissions } from './types.js';

/** Raised inside a permission computation when Cedar cannot evaluate; the decider fails closed. */
export class EvaluationFailure extends Error {}

/** Who is asking, already checked and known to the bundle. */
export interface PermissionSubject {
  who: Pick<DecisionRequest, 'tenant' | 'agent' | 'environment' | 'user'>;
  agent: AgentView;
  resource: ResourceView;
  now: number;
}

/** The set that offers nothing. */
export function noPermissions(unavailable?: string): OfferedPermissions {
  return {
    operations: [],
    visibleFields: [],
    filterableFields: [],
    limitCap: 0,
    conditionalOperations: [],
    approvalOperations: [],
    ...(unavailable !== undefined ? { unavailable } : {}),
  };
}

/**
 * Computes what a principal may do on a resource by asking Cedar.
 *
 * Operations: partial evaluation with the call-time inputs (caller IP, clocks) unknown. Cedar
 * definitely denies → not offered; definitely allows → offered; depends on the unknowns →
 * offered and listed as conditional (each call is decided on its own). An operation whose
 * permits include an approval permit is listed as needing approval.
 * Limit cap: the largest `limit` (≤ the resource's maxLimit) a search may ask for without a
 * definite denial, so policies that cap limits lower are honoured (limits assumed monotonic).
 * Fields: `view_field` / `filter_field` per field, decided with no caller IP and the current
 * clock — a field rule that depends on call-time conditions hides the field (fail closed).
 */
export function computePermissions(
  loaded: LoadedBundle,
  engine: CedarEngine,
  subject: PermissionSubject,
): OfferedPermissions {
  const { agent, resource } = subject;
  const principal = agent.entity.uid;
  const entities: EntityJson[] = [agent.entity, resource.entity, ...loaded.actionEntities];
  const baseContext = callTimeUnknown(subject, loaded);

  const actionOf = new Map(resource.operations.map((op) => [op.name, op.action]));
  const partial = (operation: Operation, limit?: number) => {
    const action = actionOf.get(operation) ?? operation;
    const set = setFor(resource, action);
    const call: PartialAuthorizationCall = {
      principal,
      action: { type: 'Action', id: action },
      resource: resource.entity.uid,
      context: limit === undefined ? baseContext : { ...baseContext, limit },
      policies: { staticPolicies: Object.fromEntries(set.policies.map((p) => [p.id, p.cedar])) },
      entities,
    };
    const answer = engine.isAuthorizedPartial(call);
    if (answer.type === 'failure')
      throw new EvaluationFailure(answer.errors.map((e) => e.message).join('; '));
    if (answer.response.errored.length > 0)
      throw new EvaluationFailure(`policies failed: ${answer.response.errored.join(', ')}`);
    return answer.response;
  };

  const operations: Operation[] = [];
  const conditionalOperations: Operation[] = [];
  const approvalOperations: Operation[] = [];
  for (const { name: operation } of resource.operations) {
    const response = partial(operation);
    if (response.decision === 'deny') continue;
    operations.push(operation);
    if (response.decision === null) conditionalOperations.push(operation);
    const involved = [...response.satisfied, ...response.mayBeDetermining];
    if (involved.some((id) => loaded.policies.get(id)?.effect === 'require_approval'))
      approvalOperations.push(operation);
  }

  // The cap is found on the operation that takes a limit (a table's search), if offered.
  let limitCap = resource.maxLimit;
  const limited = resource.operations.find((op) => op.limited === true)?.name;
  if (
    limited !== undefined &&
    operations.includes(limited) &&
    partial(limited, limitCap).decision === 'deny'
  ) {
    let low = 0;
    let high = limitCap - 1;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (partial(limited, mid).decision === 'deny') high = mid - 1;
      else low = mid;
    }
    limitCap = low;
    if (limitCap === 0) {
      const drop = (list: Operation[]) => list.splice(list.indexOf(limited), 1);
      drop(operations);
      if (conditionalOperations.includes(limited)) drop(conditionalOperations);
      if (approvalOperations.includes(limited)) drop(approvalOperations);
      limitCap = resource.maxLimit;
    }
  }
  if (operations.length === 0) return noPermissions();

  const fieldContext: Context = {
    tenant: subject.who.tenant,
    environment: subject.who.environment,
    clock: loaded.clock.read(subject.now),
  };
  if (subject.who.user !== undefined)
    fieldContext.user = { __entity: { type: 'User', id: subject.who.user } };
  const fieldAllowed = (action: FieldAction, field: EntityJson): boolean => {
    const answer = engine.statefulIsAuthorized({
      principal,
      action: { type: 'Action', id: action },
      resource: field.uid,
      context: fieldContext,
      entities: [agent.entity, resource.entity, field],
      preparsedPolicySetId: preparedSetFor(engine, resource, action).id,
    });
    if (answer.type === 'failure')
      throw new EvaluationFailure(answer.errors.map((e) => e.message).join('; '));
    if (answer.response.diagnostics.errors.length > 0)
      throw new EvaluationFailure('field policies failed');
    return answer.response.decision === 'allow';
  };
  const visibleFields = resource.fields
    .filter((f) => f.returnable && fieldAllowed('view_field', f.entity))
    .map((f) => f.name);
  const filterableFields = resource.fields
    .filter((f) => f.filterable && fieldAllowed('filter_field', f.entity))
    .map((f) => f.name);
  const exempt = new Set(
    Object.entries(resource.redactionExemptions)
      .filter(([, roles]) => roles.some((role) => agent.roles.includes(role)))
      .map(([field]) => field),
  );
  const unredactedFields = visibleFields.filter((field) => exempt.has(field));
  return {
    operations,
    visibleFields,
    filterableFields,
    limitCap,
    ...(unredactedFields.length > 0 ? { unredactedFields } : {}),
    conditionalOperations,
    approvalOperations,
  };
}

function setFor(resource: ResourceView, action: string): PolicySetView {
  const set = resource.sets.get(action);
  if (!set) throw new EvaluationFailure(`no policy set for ${resource.name}.${action}`);
  return set;
}

function preparedSetFor(
  engine: CedarEngine,
  resource: ResourceView,
  action: string,
): PolicySetView {
  const set = setFor(resource, action);
  const unprepared = preparedSet(engine, set);
  if (unprepared !== undefined) throw new EvaluationFailure(unprepared);
  return set;
}

function callTimeUnknown(subject: PermissionSubject, loaded: LoadedBundle): Context {
  const unknown = (name: string) => ({ __extn: { fn: 'unknown', arg: name } });
  const clock: Record<string, ReturnType<typeof unknown>> = {};
  for (const { key } of loaded.bundle.zones) clock[key] = unknown(`clock.${key}`);
  const context: Context = {
    tenant: subject.who.tenant,
    environment: subject.who.environment,
    sourceIp: unknown('sourceIp'),
    clock,
  };
  if (subject.who.user !== undefined)
    context.user = { __entity: { type: 'User', id: subject.who.user } };
  return context;
}
