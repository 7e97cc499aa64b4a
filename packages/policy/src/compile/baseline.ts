import type { BundleAction, CompiledPolicy, PolicyEffect, PolicyKind } from '../bundle/types.js';
import { cedarEntity, cedarSet, cedarString } from '../model/cedar-text.js';
import { FIELD_ACTIONS } from '../model/schema.js';

/**
 * The guards every bundle carries, whatever operators write: tenant isolation, environment
 * match, read-only resources (no action that changes data), the limit cap, and field
 * visibility/filterability from the field flags. Nothing else is permitted by default.
 */
export function baselinePolicies(actions: readonly BundleAction[]): CompiledPolicy[] {
  const changing = actions.filter((a) => a.groups.includes('change')).map((a) => a.id);
  const operations = actions.map((a) => a.id);
  return [
    guard(
      'tollgate/tenant-isolation',
      'tenant',
      'deny',
      'forbid (principal, action, resource)\nunless { principal.tenant == resource.tenant && context.tenant == resource.tenant };',
    ),
    guard(
      'tollgate/environment-match',
      'environment',
      'deny',
      'forbid (principal, action, resource)\nunless { context.environment == resource.environment };',
    ),
    guard(
      'tollgate/read-only',
      'readonly',
      'deny',
      `forbid (principal, action in ${cedarSet(changing.map((id) => cedarEntity('Action', id)))}, resource is Resource)\nwhen { resource.readonly };`,
      changing,
    ),
    guard(
      'tollgate/limit-cap',
      'limit',
      'deny',
      'forbid (principal, action, resource is Resource)\nwhen { context has limit && context.limit > resource.maxLimit };',
      operations,
    ),
    guard(
      'tollgate/field-access',
      'field',
      'allow',
      'permit (principal, action in [Action::"view_field", Action::"filter_field"], resource is Field);',
      [...FIELD_ACTIONS],
    ),
    guard(
      'tollgate/field-returnable',
      'field',
      'deny',
      'forbid (principal, action == Action::"view_field", resource is Field)\nunless { resource.returnable };',
      ['view_field'],
    ),
    guard(
      'tollgate/field-filterable',
      'field',
      'deny',
      'forbid (principal, action == Action::"filter_field", resource is Field)\nunless { resource.filterable };',
      ['filter_field'],
    ),
  ];
}

function guard(
  id: string,
  kind: PolicyKind,
  effect: PolicyEffect,
  body: string,
  actions?: string[],
): CompiledPolicy {
  const cedar = `@id(${cedarString(id)})\n@tollgate_effect(${cedarString(effect)})\n${body}`;
  return { id, effect, kind, source: 'tollgate', ...(actions ? { actions } : {}), cedar };
}
