import type { EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import { OPERATION_CLASSES, isOperationName } from '@tollgate/core';
import type { OperationSpec, ResourceDescriptor } from '@tollgate/core';
import type { BundleOperation, CompiledPolicy, PolicyProblem } from '../bundle/types.js';
import { isResourceName } from '../model/actions.js';
import { cedarEntity, cedarSet, cedarString } from '../model/cedar-text.js';
import { FIELD_ACTIONS, fieldEntityId } from '../model/schema.js';

/**
 * A resource descriptor as the registry stores it (one immutable version) with the operations
 * its kind declares for it (`kind.operations(descriptor)`), which the bundle records.
 */
export interface VersionedResource {
  version: number;
  descriptor: ResourceDescriptor;
  operations: readonly OperationSpec[];
}

/** Defaults the descriptor schema documents for `access`. */
export const DEFAULT_MAX_LIMIT = 100;

/** What a resource contributes to a bundle. */
export interface CompiledResource {
  entities: EntityJson[];
  policies: CompiledPolicy[];
  roles: string[];
  problems: PolicyProblem[];
  /** The resource's operations as the bundle records them (absent when it had problems). */
  operations?: BundleOperation[];
  /** Redacted fields whose rule exempts roles, by those roles. */
  redactionExemptions?: Record<string, string[]>;
}

/**
 * Compiles a resource's `access` block: `allowedRoles` permit its read operations (writes
 * always need a grant, and `readonly` — true unless set to false — forbids them anyway);
 * `fieldRoles` forbid seeing or filtering a field to everyone outside its roles; `maxLimit`
 * and `readonly` become attributes the built-in guards test. Fields become `Field` entities.
 */
export function compileResource(entry: VersionedResource, tenant: string): CompiledResource {
  const { descriptor, version } = entry;
  const name = descriptor?.metadata?.name;
  const path = `Resource/${String(name)}`;
  const problems: PolicyProblem[] = [];
  const problem = (where: string, message: string): void => {
    problems.push({ path: `${path}${where}`, message });
  };
  const empty = { entities: [], policies: [], roles: [], problems };

  if (typeof name !== 'string' || !isResourceName(name)) {
    problem('/metadata.name', 'must match [a-z][a-z0-9_]{2,62}');
    return empty;
  }
  if (descriptor.metadata.tenant !== tenant)
    problem(
      '/metadata.tenant',
      `belongs to tenant "${descriptor.metadata.tenant}", not "${tenant}"`,
    );
  if (
    typeof descriptor.metadata.environment !== 'string' ||
    descriptor.metadata.environment === ''
  ) {
    problem('/metadata.environment', 'must be a non-empty string');
  }
  if (!Number.isSafeInteger(version) || version < 1)
    problem('', 'version must be a positive whole number');
  const operations = operationsOf(entry.operations, problem);
  const access = descriptor.spec?.access;
  if (typeof access !== 'object' || access === null) {
    problem('/spec.access', 'is required');
    return empty;
  }
  const allowedRoles = names(access.allowedRoles, '/spec.access.allowedRoles', problem);
  const maxLimit = access.maxLimit ?? DEFAULT_MAX_LIMIT;
  if (!Number.isSafeInteger(maxLimit) || maxLimit < 1)
    problem('/spec.access.maxLimit', 'must be a positive whole number');
  if (access.readonly !== undefined && typeof access.readonly !== 'boolean')
    problem('/spec.access.readonly', 'must be true or false');
  const fieldRoles = Object.entries(access.fieldRoles ?? {})
    .map(
      ([field, roles]) =>
        [field, names(roles, `/spec.access.fieldRoles.${field}`, problem)] as const,
    )
    .sort(([a], [b]) => (a < b ? -1 : 1));
  if (problems.length > 0) return empty;

  const environment = descriptor.metadata.environment;
  const resourceUid = { type: 'Resource', id: name };
  const tenantUid = { type: 'Tenant', id: tenant };
  const entities: EntityJson[] = [
    {
      uid: resourceUid,
      attrs: { tenant, environment, readonly: access.readonly !== false, maxLimit, version },
      parents: [tenantUid],
    },
  ];
  for (const [field, spec] of Object.entries(descriptor.spec.schema?.fields ?? {})) {
    entities.push({
      uid: { type: 'Field', id: fieldEntityId(name, field) },
      attrs: {
        tenant,
        environment,
        resource: { __entity: resourceUid },
        name: field,
        returnable: spec.returnable === true,
        filterable: spec.filterable === true || spec.range === true || spec.searchable === true,
      },
      parents: [resourceUid, tenantUid],
    });
  }

  const source = `Resource/${name}`;
  const policies: CompiledPolicy[] = [];
  const reads = [
    ...new Set(operations.filter((op) => op.class === 'read').map((op) => op.action)),
  ].sort();
  if (allowedRoles.length > 0 && reads.length > 0) {
    const id = `resource/${name}/access`;
    policies.push({
      id,
      effect: 'allow',
      kind: 'access',
      source,
      resources: [name],
      actions: reads,
      cedar: [
        `@id(${cedarString(id)})`,
        '@tollgate_effect("allow")',
        `permit (principal, action in ${cedarSet(reads.map((op) => cedarEntity('Action', op)))}, resource == ${cedarEntity('Resource', name)})`,
        `when { principal in ${cedarSet(allowedRoles.map((r) => cedarEntity('Role', r)))} };`,
      ].join('\n'),
    });
  }
  for (const [field, roles] of fieldRoles) {
    const id = `resource/${name}/field-roles/${field}`;
    const principals =
      roles.length > 0
        ? `principal in ${cedarSet(roles.map((r) => cedarEntity('Role', r)))}`
        : 'false';
    policies.push({
      id,
      effect: 'deny',
      kind: 'field_roles',
      source,
      resources: [name],
      actions: [...FIELD_ACTIONS],
      cedar: [
        `@id(${cedarString(id)})`,
        '@tollgate_effect("deny")',
        'forbid (',
        '  principal,',
        '  action in [Action::"view_field", Action::"filter_field"],',
        `  resource == ${cedarEntity('Field', fieldEntityId(name, field))}`,
        ')',
        `unless { ${principals} };`,
      ].join('\n'),
    });
  }
  const redactionExemptions: Record<string, string[]> = {};
  for (const [field, rule] of Object.entries(access.redact ?? {})) {
    if (typeof rule === 'object' && rule !== null && field !== '__proto__') {
      redactionExemptions[field] = [...new Set(rule.exceptRoles)].sort();
    }
  }
  const roles = [
    ...new Set([
      ...allowedRoles,
      ...fieldRoles.flatMap(([, r]) => r),
      ...Object.values(redactionExemptions).flat(),
    ]),
  ];
  return { entities, policies, roles, problems, operations, redactionExemptions };
}

/** The declared operations, checked: valid unique names and actions, known classes. */
function operationsOf(
  value: readonly OperationSpec[] | undefined,
  problem: (where: string, message: string) => void,
): BundleOperation[] {
  if (!Array.isArray(value)) {
    problem('/operations', 'must be the list of operations its kind declares');
    return [];
  }
  const seen = new Set<string>();
  const out: BundleOperation[] = [];
  value.forEach((op: OperationSpec, i) => {
    const where = `/operations[${i}]`;
    if (!isOperationName(op?.name)) return problem(`${where}.name`, 'must be an operation name');
    if (!isOperationName(op.action)) return problem(`${where}.action`, 'must be an action name');
    if (!OPERATION_CLASSES.includes(op.class))
      return problem(`${where}.class`, `must be one of ${OPERATION_CLASSES.join(', ')}`);
    if (seen.has(op.name)) return problem(`${where}.name`, `"${op.name}" is declared twice`);
    seen.add(op.name);
    out.push({
      name: op.name,
      action: op.action,
      class: op.class,
      ...(op.limited === true ? { limited: true } : {}),
    });
  });
  return out;
}

function names(
  value: unknown,
  where: string,
  problem: (where: string, message: string) => void,
): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    problem(where, 'must be a list of non-empty role names');
    return [];
  }
  return [...new Set(value as string[])].sort();
}
