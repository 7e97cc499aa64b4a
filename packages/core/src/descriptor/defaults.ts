/** The defaults a descriptor leaves implicit, made explicit (a new object; input untouched). */
import { CAPABILITIES } from '../discovery/capabilities.js';
import type { ResourceKinds } from './validate.js';
import type { Descriptor, FieldSpec, ResourceDescriptor } from './types.js';

/** Documented defaults every Resource shares; kinds document their own. */
export const RESOURCE_DEFAULTS = { timeoutMs: 5000, readonly: true, maxLimit: 100 } as const;

/**
 * The descriptor with every default filled in: for a Resource `connection.timeoutMs` 5000,
 * `access.readonly` true, `access.maxLimit` 100, each field capability false, and whatever its
 * kind documents. Agents and policies have no defaults and come back as copies. The descriptor
 * must be valid (its kind registered).
 */
export function applyDescriptorDefaults<D extends Descriptor>(
  descriptor: D,
  kinds: ResourceKinds,
): D {
  const copy = structuredClone(descriptor);
  if (copy.kind === 'Resource') fillResource(copy, kinds);
  return copy;
}

function fillResource(resource: ResourceDescriptor, kinds: ResourceKinds): void {
  const { connection, access, schema } = resource.spec;
  connection.timeoutMs ??= RESOURCE_DEFAULTS.timeoutMs;
  access.readonly ??= RESOURCE_DEFAULTS.readonly;
  access.maxLimit ??= RESOURCE_DEFAULTS.maxLimit;
  for (const field of Object.values(schema.fields)) fillField(field);
  kinds.find(resource.spec.type)?.applyDefaults(resource.spec);
}

function fillField(field: FieldSpec): void {
  for (const capability of CAPABILITIES) field[capability] ??= false;
}
