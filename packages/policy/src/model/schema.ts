import type { EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import { OPERATIONS, READ_OPERATIONS } from './actions.js';

/**
 * The Tollgate Cedar schema. Entity types: Tenant, Role, User, Agent (the principal), Resource
 * (one per resource descriptor) and Field (one per declared field, a child of its Resource).
 * Actions: one per operation (`search`, `get`, `count`, `aggregate` in the group `read`, and
 * `write`) on Resources, plus `view_field` / `filter_field` on Fields. Every action shares one
 * context; `clock` has one attribute per time zone the bundle uses (see clock.ts).
 */
export const SCHEMA_FORMAT = 'tollgate.cedar-schema/v1';

/** Field-level actions, asked when computing a permission set. */
export const FIELD_ACTIONS = ['view_field', 'filter_field'] as const;
export type FieldAction = (typeof FIELD_ACTIONS)[number];

export function cedarSchemaText(zoneKeys: readonly string[]): string {
  const clock = zoneKeys.map((key) => `"${key}": Long`).join(', ');
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
    'action read;',
    `action ${READ_OPERATIONS.join(', ')} in [read]`,
    '  appliesTo { principal: [Agent], resource: [Resource], context: CallContext };',
    'action write appliesTo { principal: [Agent], resource: [Resource], context: CallContext };',
    `action ${FIELD_ACTIONS.join(', ')} appliesTo { principal: [Agent], resource: [Field], context: CallContext };`,
    '',
  ].join('\n');
}

/**
 * The action hierarchy as entities, for evaluation without the schema (partial evaluation and
 * single-policy traces): `search` … `aggregate` are members of `read`.
 */
export const ACTION_ENTITIES: readonly EntityJson[] = [
  { uid: { type: 'Action', id: 'read' }, attrs: {}, parents: [] },
  ...[...OPERATIONS, ...FIELD_ACTIONS].map((id) => ({
    uid: { type: 'Action', id },
    attrs: {},
    parents: (READ_OPERATIONS as readonly string[]).includes(id)
      ? [{ type: 'Action', id: 'read' }]
      : [],
  })),
];

/** `Field` entity id for a field of a resource. */
export function fieldEntityId(resource: string, field: string): string {
  return `${resource}/${field}`;
}
