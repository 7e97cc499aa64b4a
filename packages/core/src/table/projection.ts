/**
 * The projection of one resource version through one permission set: which fields a tool may
 * return, filter, sort, aggregate and write, already intersected with what the descriptor
 * declares. Every schema and description is built from this and nothing else.
 */
import type { FieldSpec } from '../descriptor/types.js';
import { TollgateError } from '../errors/codes.js';
import { compareCodeUnits } from '../canonical.js';
import { redactionFor } from '../connector/redact.js';
import type { ResolvedOptions } from '../synthesis/limits.js';
import { normalizePermissions } from '../synthesis/permissions.js';
import type { JsonSchema, PermissionSet, VersionedResource } from '../tools/types.js';
import type { AggregationKind, FilterOp } from './args.js';
import { AGGREGATION_KINDS, limitCapOf } from './compile.js';
import { traitsOrOpaque } from './family.js';
import type { FieldTraits, TableModel } from './family.js';
import { aggregationKinds, documentSchema, filterGroups, isSortable } from './fields.js';

/** One filter branch: a field and a group of operators sharing a value type. */
export interface FilterBranch {
  field: string;
  ops: FilterOp[];
  value?: JsonSchema;
}

export interface Projection {
  resource: VersionedResource;
  model: TableModel;
  permissions: PermissionSet;
  limits: ResolvedOptions;
  /** min(permission cap, access.maxLimit). */
  limitCap: number;
  /** Returnable fields the principal may see (not redacted with `drop`), sorted. */
  visible: string[];
  /** Filter branches sorted by field, then by operator group. */
  filters: FilterBranch[];
  /** Visible, sortable fields, sorted. */
  sortable: string[];
  /** Visible, aggregatable, unredacted fields per aggregation kind, sorted. */
  aggregations: Map<AggregationKind, string[]>;
  /** Visible scalar fields a write may set (not the row-filter field), with schemas, sorted. */
  writable: [string, JsonSchema][];
  /** Traits of every field the projection names. */
  traits: ReadonlyMap<string, FieldTraits>;
}

/** Projects `resource` through `permissions`; a permission naming an undeclared field is an error. */
export function project(
  resource: VersionedResource,
  model: TableModel,
  permissions: PermissionSet,
  limits: ResolvedOptions,
): Projection {
  const normalized = normalizePermissions(permissions);
  const fields = resource.spec.schema.fields;
  const traits = new Map<string, FieldTraits>();
  const specOf = (field: string, list: string): FieldSpec => {
    const spec = Object.hasOwn(fields, field) ? fields[field] : undefined;
    if (spec === undefined) {
      throw new TollgateError(
        'INVALID_ARGUMENT',
        `permission ${list} names "${field}", which resource ${resource.metadata.name} v${resource.version} does not declare`,
        { details: [{ path: list, message: 'unknown field', found: JSON.stringify(field) }] },
      );
    }
    if (!traits.has(field)) traits.set(field, traitsOrOpaque(model, spec));
    return spec;
  };
  const traitsOf = (field: string, list: string): FieldTraits => {
    specOf(field, list);
    return traits.get(field) as FieldTraits;
  };
  const { access } = resource.spec;
  const redaction = (field: string) => redactionFor(access, field, normalized);
  // Returnable and not redacted away (`drop`); masked or hashed fields are still returned.
  const visible = normalized.visibleFields.filter(
    (field) => specOf(field, 'visibleFields').returnable === true && redaction(field) !== 'drop',
  );
  const filters = normalized.filterableFields.flatMap((field) =>
    filterGroups(
      specOf(field, 'filterableFields'),
      traitsOf(field, 'filterableFields'),
      model.dialect,
      limits,
    ).map((group) => ({ field, ...group })),
  );
  const aggregations = new Map<AggregationKind, string[]>();
  for (const kind of AGGREGATION_KINDS) {
    // An aggregation reveals raw values, so redacted fields never take part.
    const usable = visible.filter(
      (field) =>
        redaction(field) === undefined &&
        aggregationKinds(specOf(field, 'visibleFields'), traitsOf(field, 'visibleFields')).includes(
          kind,
        ),
    );
    if (usable.length > 0) aggregations.set(kind, usable);
  }
  const writable: [string, JsonSchema][] = [];
  for (const field of visible) {
    if (field === access.rowFilter?.field) continue; // the platform sets it to the principal's value
    const schema = documentSchema(traitsOf(field, 'visibleFields'), limits);
    if (schema !== undefined) writable.push([field, schema]);
  }
  return {
    resource,
    model,
    permissions: normalized,
    limits,
    limitCap: limitCapOf(normalized.limitCap, access.maxLimit),
    visible,
    filters,
    sortable: visible.filter((field) =>
      isSortable(specOf(field, 'visibleFields'), traitsOf(field, 'visibleFields')),
    ),
    aggregations,
    writable: writable.sort(([a], [b]) => compareCodeUnits(a, b)),
    traits,
  };
}
