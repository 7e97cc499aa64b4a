/**
 * Permission sets: derived from a resource's `access` block when no policy bundle decides,
 * normalized (sorted, deduplicated) and hashed so caches can key on them.
 */
import type { ResourceDescriptor } from '../descriptor/types.js';
import { TollgateError } from '../errors/codes.js';
import { canonicalHash, compareCodeUnits } from '../canonical.js';
import { redactionExemptRoles } from '../connector/redact.js';
import { OPERATION_NAME, isOperationName } from '../kind/operation.js';
import type { OperationSpec } from '../kind/operation.js';
import { DEFAULT_MAX_LIMIT } from '../table/compile.js';
import type { PermissionSet } from '../tools/types.js';

/** Who is asking: the roles and name of an agent. */
export interface AccessPrincipal {
  roles: string[];
  agent: string;
}

/**
 * What `principal` may do on `resource` according to its `access` block alone: undefined when
 * none of its roles is allowed; fields named in `fieldRoles` only for the roles listed there;
 * returnable fields are visible, filterable/range/searchable ones filterable; redactions
 * exempting one of its roles lifted; `limitCap` is `maxLimit`; of `operations` (the kind's),
 * reads always and the others only when the resource is explicitly `readonly: false`.
 */
export function permissionsFromAccess(
  resource: ResourceDescriptor,
  principal: AccessPrincipal,
  operations: readonly OperationSpec[],
): PermissionSet | undefined {
  const { access, schema } = resource.spec;
  const roles = new Set(principal.roles);
  if (!access.allowedRoles.some((role) => roles.has(role))) return undefined;
  const fieldAllowed = (field: string): boolean => {
    const only = access.fieldRoles?.[field];
    return only === undefined || only.some((role) => roles.has(role));
  };
  const visibleFields: string[] = [];
  const filterableFields: string[] = [];
  for (const [field, spec] of Object.entries(schema.fields)) {
    if (!fieldAllowed(field)) continue;
    if (spec.returnable === true) visibleFields.push(field);
    if (spec.filterable === true || spec.range === true || spec.searchable === true) {
      filterableFields.push(field);
    }
  }
  const unredactedFields = Object.entries(access.redact ?? {})
    .filter(([, rule]) => redactionExemptRoles(rule).some((role) => roles.has(role)))
    .map(([field]) => field);
  return normalizePermissions({
    operations: operations
      .filter((op) => op.class === 'read' || access.readonly === false)
      .map((op) => op.name),
    visibleFields,
    filterableFields,
    limitCap: access.maxLimit ?? DEFAULT_MAX_LIMIT,
    ...(unredactedFields.length > 0 ? { unredactedFields } : {}),
  });
}

/** The same permission set with operations and fields sorted and deduplicated. */
export function normalizePermissions(permissions: PermissionSet): PermissionSet {
  const { operations, visibleFields, filterableFields, limitCap, unredactedFields } = permissions;
  if (!Number.isSafeInteger(limitCap) || limitCap < 1) {
    throw new TollgateError('INVALID_ARGUMENT', `permission limitCap must be a positive integer`, {
      details: [
        { path: 'limitCap', message: 'expected a positive integer', found: String(limitCap) },
      ],
    });
  }
  for (const [index, op] of operations.entries()) {
    if (!isOperationName(op)) {
      throw new TollgateError('INVALID_ARGUMENT', `invalid operation name ${JSON.stringify(op)}`, {
        details: [
          {
            path: `operations[${index}]`,
            message: `expected an operation name matching ${OPERATION_NAME.source}`,
            found: JSON.stringify(op),
          },
        ],
      });
    }
  }
  const unredacted = sortedUnique(unredactedFields ?? []);
  return {
    operations: sortedUnique(operations),
    visibleFields: sortedUnique(visibleFields),
    filterableFields: sortedUnique(filterableFields),
    limitCap,
    ...(unredacted.length > 0 ? { unredactedFields: unredacted } : {}),
  };
}

/** sha256 (hex) of the normalized permission set: equal sets hash equal whatever their order. */
export function permissionSetHash(permissions: PermissionSet): string {
  return canonicalHash(normalizePermissions(permissions));
}

function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort(compareCodeUnits);
}

/**
 * `permissions` without fields `descriptor` does not declare, with a limit cap of at least 1.
 * A descriptor can change before the tenant's policy bundle is recompiled; a removed field must
 * stop working at once. The synthesizer and the executor both project through this one
 * function, so the tool a principal is offered and the tool its calls are checked against are
 * the same (same version hash). Only ever narrows.
 */
export function narrowToDeclared(
  permissions: PermissionSet,
  descriptor: ResourceDescriptor,
): PermissionSet {
  const fields = descriptor.spec.schema.fields;
  const declared = (field: string): boolean => Object.hasOwn(fields, field);
  const unredacted = permissions.unredactedFields?.filter(declared) ?? [];
  return {
    operations: [...permissions.operations],
    visibleFields: permissions.visibleFields.filter(declared),
    filterableFields: permissions.filterableFields.filter(declared),
    limitCap: Math.max(1, permissions.limitCap),
    ...(unredacted.length > 0 ? { unredactedFields: unredacted } : {}),
  };
}
