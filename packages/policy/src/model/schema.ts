import type { EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import { TABLE_OPERATIONS } from '@tollgate/core';
import type { OperationClass } from '@tollgate/core';
import type { BundleAction, BundleOperation } from '../bundle/types.js';
import { ACTION_GROUPS, groupsOfClass } from './actions.js';
import type { ActionGroup } from './actions.js';
import { cedarString } from './cedar-text.js';

/**
 * The Tollgate Cedar schema. Entity types: Tenant, Role, User, Agent (the principal), Resource
 * (one per resource descriptor) and Field (one per declared field, a child of its Resource).
 * Actions: one per operation the tenant's resources declare (their kinds say which), in the
 * groups `read`, `change` and `destroy` of their classes, plus `view_field` / `filter_field`
 * on Fields. The table family's operations are always declared, so raw Cedar naming them
 * validates before any resource exists. Every action shares one context; `clock` has one
 * attribute per time zone the bundle uses (see clock.ts).
 */
export const SCHEMA_FORMAT = 'tollgate.cedar-schema/v2';

/** Field-level actions, asked when computing a permission set. */
export const FIELD_ACTIONS = ['view_field', 'filter_field'] as const;
export type FieldAction = (typeof FIELD_ACTIONS)[number];

/**
 * The operation actions of a bundle: every action its resources' operations name (grouped by
 * the rule on `BundleAction`), the table family's, and any a grant names (ungrouped when no
 * resource declares it: such a grant applies to nothing yet).
 */
export function bundleActions(
  operations: Readonly<Record<string, readonly BundleOperation[]>>,
  named: Iterable<string> = [],
): BundleAction[] {
  const classes = new Map<string, Set<OperationClass>>();
  const add = (action: string, cls: OperationClass) => {
    const set = classes.get(action) ?? new Set<OperationClass>();
    set.add(cls);
    classes.set(action, set);
  };
  for (const ops of Object.values(operations)) for (const op of ops) add(op.action, op.class);
  for (const op of TABLE_OPERATIONS) if (!classes.has(op.action)) add(op.action, op.class);
  const ids = new Set([...classes.keys(), ...named]);
  return [...ids].sort().map((id) => ({ id, groups: groupsOf(classes.get(id)) }));
}

function groupsOf(classes: ReadonlySet<OperationClass> | undefined): ActionGroup[] {
  if (classes === undefined || classes.size === 0) return [];
  const all = [...classes];
  if (all.every((cls) => cls === 'read')) return ['read'];
  const groups = new Set(all.filter((cls) => cls !== 'read').flatMap(groupsOfClass));
  return ACTION_GROUPS.filter((group) => groups.has(group));
}

const APPLIES_TO = 'appliesTo { principal: [Agent], resource: [Resource], context: CallContext }';

export function cedarSchemaText(
  zoneKeys: readonly string[],
  actions: readonly BundleAction[],
): string {
  const clock = zoneKeys.map((key) => `"${key}": Long`).join(', ');
  // One declaration per distinct group set keeps the schema short for wide tenants.
  const byGroups = new Map<string, string[]>();
  for (const action of actions) {
    const key = action.groups.join(',');
    byGroups.set(key, [...(byGroups.get(key) ?? []), action.id]);
  }
  const declarations = [...byGroups].map(([key, ids]) => {
    const names = ids.map(cedarString).join(', ');
    const groups = key === '' ? '' : ` in [${key.split(',').map(cedarString).join(', ')}]`;
    return `action ${names}${groups} ${APPLIES_TO};`;
  });
  return [
    `// ${SCHEMA_FORMAT}`,
    'entity Tenant;',
    'entity Role in [Tenant];',
    'entity User in [Tenant];',
    'entity Agent in [Role, Tenant] { tenant: String, user?: User };',
    'entity Resource in [Tenant] { tenant: String, environment: String, readonly: Bool, maxLimit: Long, version: Long };',
    'entity Field in [Resource, Tenant] {',
    '  tenant: String, environment: String, resource: Resource, name: String, returnable: Bool, filterable: Bool',
    '};',
    `type Clock = { ${clock} };`,
    'type CallContext = {',
    '  tenant: String,',
    '  environment: String,',
    '  sourceIp?: ipaddr,',
    '  clock: Clock,',
    '  limit?: Long,',
    '  user?: User,',
    '};',
    `action ${ACTION_GROUPS.map(cedarString).join(', ')};`,
    ...declarations,
    `action ${FIELD_ACTIONS.join(', ')} appliesTo { principal: [Agent], resource: [Field], context: CallContext };`,
    '',
  ].join('\n');
}

/**
 * The action hierarchy as entities, for evaluation without the schema (partial evaluation and
 * single-policy traces): each action with its groups as parents.
 */
export function actionEntities(actions: readonly BundleAction[]): EntityJson[] {
  return [
    ...ACTION_GROUPS.map((id) => ({ uid: { type: 'Action', id }, attrs: {}, parents: [] })),
    ...actions.map((action) => ({
      uid: { type: 'Action', id: action.id },
      attrs: {},
      parents: action.groups.map((id) => ({ type: 'Action', id })),
    })),
    ...FIELD_ACTIONS.map((id) => ({ uid: { type: 'Action', id }, attrs: {}, parents: [] })),
  ];
}

/** `Field` entity id for a field of a resource. */
export function fieldEntityId(resource: string, field: string): string {
  return `${resource}/${field}`;
}
