/**
 * What the table family gives a kind: its operations, its tools and the rules fields must
 * follow, all derived from the kind's `TableModel`. A table kind's `operations`, `offerTools`
 * and part of its `specRules` are these functions.
 */
import type { ResourceDescriptor } from '../descriptor/types.js';
import type { DescriptorProblem } from '../descriptor/problems.js';
import { mismatch, problem } from '../descriptor/problems.js';
import { joinPath } from '../descriptor/path.js';
import { asRecord } from '../descriptor/record.js';
import type { ToolOffer, ToolRequest } from '../kind/kind.js';
import type { OperationSpec } from '../kind/operation.js';
import { describeTool } from './descriptions.js';
import { isOrderedClass, isScalarClass, isSearchableClass } from './family.js';
import type { FieldTraits, TableModel } from './family.js';
import { project } from './projection.js';
import { inputSchema } from './schemas.js';

const read = (
  name: string,
  answer: { limited?: true; returnsFields?: true } = {},
): OperationSpec => ({
  name,
  action: name,
  class: 'read',
  idempotent: true,
  ...answer,
});
const write = (name: string, idempotent: boolean): OperationSpec => ({
  name,
  action: name,
  class: 'write',
  idempotent,
});

/** The reads every table resource offers, in tool order. */
export const TABLE_READS: readonly OperationSpec[] = [
  read('search', { limited: true, returnsFields: true }),
  read('get', { returnsFields: true }),
  read('count'),
  read('aggregate'),
];

/** Every operation of the table family, whichever dialect offers it. */
export const TABLE_OPERATIONS: readonly OperationSpec[] = [
  ...TABLE_READS,
  write('write', true),
  write('insert', false),
  write('update', true),
];

/**
 * The operations of a table resource: the reads, and the dialect's writes when the resource is
 * declared `readonly: false`. An upsert by id is idempotent; an insert is not (it may add a
 * second record), an update by key is.
 */
export function tableOperations(
  descriptor: ResourceDescriptor,
  model: TableModel,
): OperationSpec[] {
  // Read on possibly broken descriptors too (a bundle reports them): no access block, no writes.
  if (descriptor.spec?.access?.readonly !== false) return [...TABLE_READS];
  const writes =
    model.dialect.writes === 'upsert'
      ? [write('write', true)]
      : [write('insert', false), write('update', true)];
  return [...TABLE_READS, ...writes];
}

/** The tools of a table resource for one permission set (see `ResourceKind.offerTools`). */
export function offerTableTools(
  request: ToolRequest,
  model: TableModel,
): ReadonlyMap<string, ToolOffer> {
  const p = project(request.resource, model, request.permissions, request.limits);
  const schemas = new Map(
    request.operations.flatMap((operation) => {
      const schema = inputSchema(operation.name, p);
      return schema === undefined ? [] : [[operation.name, schema] as const];
    }),
  );
  const names = Object.fromEntries(
    [...schemas.keys()].map((name) => [name, request.toolNames.get(name) ?? name]),
  );
  return new Map(
    [...schemas].map(([name, inputSchema]) => [
      name,
      { inputSchema, description: describeTool(name, p, names) },
    ]),
  );
}

const FIELDS_PATH = 'spec.schema.fields';

/** Which classes a capability fits, and what to say when it does not. */
const CAPABILITY_RULES: Record<
  string,
  {
    fits: (traits: FieldTraits, model: TableModel) => boolean;
    hint: (traits: FieldTraits) => string;
  }
> = {
  filterable: {
    fits: (traits) => isScalarClass(traits),
    hint: (traits) =>
      traits.valueClass === 'text'
        ? 'use searchable for text fields'
        : 'filterable is for exact values, numbers, dates, booleans, ids and addresses',
  },
  sortable: {
    fits: (traits) => isScalarClass(traits),
    hint: () => 'sortable is for exact values, numbers, dates, booleans, ids and addresses',
  },
  aggregatable: {
    fits: (traits) => isScalarClass(traits),
    hint: () => 'aggregatable is for exact values, numbers, dates, booleans, ids and addresses',
  },
  range: {
    fits: (traits) => isOrderedClass(traits),
    hint: () => 'range is for numeric and date fields',
  },
  searchable: {
    fits: (traits, model) => isSearchableClass(traits, model.dialect),
    hint: () => 'searchable is for text fields',
  },
};

/**
 * The family's rules on a possibly malformed Resource: each declared capability must fit its
 * field's class, and the row filter must name a field of exact values.
 */
export function tableFieldRules(descriptor: unknown, model: TableModel): DescriptorProblem[] {
  const spec = asRecord(asRecord(descriptor)?.spec);
  const fields = asRecord(asRecord(spec?.schema)?.fields) ?? {};
  const problems: DescriptorProblem[] = [];
  for (const [name, raw] of Object.entries(fields)) {
    const field = asRecord(raw);
    if (field === undefined || typeof field.type !== 'string') continue;
    const traits = model.traitsOf(field as never);
    if (traits === undefined) continue;
    for (const [capability, rule] of Object.entries(CAPABILITY_RULES)) {
      if (field[capability] === true && !rule.fits(traits, model)) {
        const hints: Partial<Record<string, string>> = model.capabilityHints ?? {};
        const own = hints[capability];
        const hint =
          capability === 'filterable' && traits.valueClass === 'text'
            ? rule.hint(traits)
            : (own ?? rule.hint(traits));
        problems.push(
          notAllowed(joinPath(joinPath(FIELDS_PATH, name), capability), field.type, hint),
        );
      }
    }
  }
  const rowField = asRecord(asRecord(spec?.access)?.rowFilter)?.field;
  if (typeof rowField === 'string' && Object.hasOwn(fields, rowField)) {
    const field = asRecord(fields[rowField]);
    const traits =
      field !== undefined && typeof field.type === 'string'
        ? model.traitsOf(field as never)
        : undefined;
    if (traits !== undefined && (traits.valueClass !== 'exact' || traits.array === true)) {
      problems.push(
        mismatch(
          'spec.access.rowFilter.field',
          'a declared field of exact string values',
          `a ${String(field?.type)} field`,
        ),
      );
    }
  }
  return problems;
}

function notAllowed(path: string, type: string, hint: string): DescriptorProblem {
  return problem(path, `not allowed on a ${type} field (${hint})`, {
    expected: hint,
    found: `a ${type} field`,
  });
}
