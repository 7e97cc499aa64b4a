/** The defaults a descriptor leaves implicit, made explicit (a new object; input untouched). */
import type { Descriptor, FieldSpec, ResourceDescriptor } from './types.js';

/** Documented defaults of a Resource. */
export const RESOURCE_DEFAULTS = { timeoutMs: 5000, readonly: true, maxLimit: 100 } as const;

const CAPABILITIES = [
  'filterable',
  'returnable',
  'sortable',
  'range',
  'searchable',
  'aggregatable',
] as const;

/**
 * The descriptor with every default filled in: for a Resource `connection.timeoutMs` 5000,
 * `access.readonly` true, `access.maxLimit` 100 and each field capability false. Agents and
 * policies have no defaults and come back as copies.
 */
export function applyDescriptorDefaults<D extends Descriptor>(descriptor: D): D {
  const copy = structuredClone(descriptor);
  if (copy.kind === 'Resource') fillResource(copy);
  return copy;
}

function fillResource(resource: ResourceDescriptor): void {
  const { connection, access, schema } = resource.spec;
  connection.timeoutMs ??= RESOURCE_DEFAULTS.timeoutMs;
  access.readonly ??= RESOURCE_DEFAULTS.readonly;
  access.maxLimit ??= RESOURCE_DEFAULTS.maxLimit;
  for (const field of Object.values(schema.fields)) fillField(field);
}

function fillField(field: FieldSpec): void {
  for (const capability of CAPABILITIES) field[capability] ??= false;
}
