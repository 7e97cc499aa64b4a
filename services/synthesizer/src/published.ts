/**
 * Reading one entry of the registry's `tollgate_resources` KV projection back: strictly, since
 * what it says becomes tools. An entry that fails any check is not offered at all.
 */
import { parsePublishedResource, validateDescriptor } from '@tollgate/core';
import type { Operation, ResourceDescriptor, VersionedResource } from '@tollgate/core';
import { resourceKey, subjects } from '@tollgate/kit';

/** One resource as the synthesizer offers it: the version the registry last projected. */
export interface CatalogEntry {
  /** The KV key, `<tenant>.<environment>.<name>`; unique across the catalog. */
  key: string;
  tenant: string;
  environment: string;
  name: string;
  version: number;
  /** Content hash of the descriptor (the registry's). */
  hash: string;
  /** Resource kind (`spec.type`), e.g. `elasticsearch`. */
  kind: string;
  /** Where agents send calls to this resource's tools. */
  callSubject: string;
  resource: VersionedResource;
}

export const OPERATIONS: readonly Operation[] = ['search', 'get', 'count', 'aggregate', 'write'];

/** The catalog entry a KV value describes, or why it cannot be offered. */
export function readPublished(key: string, value: Uint8Array): CatalogEntry | { invalid: string } {
  const published = parsePublishedResource(value);
  if ('invalid' in published) return { invalid: published.invalid };
  const { tenant, environment, name, version, hash, descriptor } = published;
  let expectedKey: string;
  try {
    expectedKey = resourceKey(tenant, environment, name);
  } catch (err) {
    return { invalid: (err as Error).message };
  }
  if (expectedKey !== key) return { invalid: `entry for ${expectedKey} is stored under ${key}` };
  const checked = validateDescriptor(descriptor);
  if (!checked.ok) {
    const first = checked.problems[0];
    const more = checked.problems.length > 1 ? ` (and ${checked.problems.length - 1} more)` : '';
    return {
      invalid: `descriptor is invalid: ${first?.path || '(root)'}: ${first?.message}${more}`,
    };
  }
  const valid = checked.descriptor as ResourceDescriptor;
  const meta = valid.metadata;
  if (meta.tenant !== tenant || meta.environment !== environment || meta.name !== name) {
    return {
      invalid: `descriptor names ${meta.tenant}/${meta.environment}/${meta.name}, not ${tenant}/${environment}/${name}`,
    };
  }
  let callSubject: string;
  try {
    callSubject = subjects.call(valid.spec.type, name);
  } catch (err) {
    return { invalid: (err as Error).message };
  }
  return {
    key,
    tenant,
    environment,
    name,
    version,
    hash,
    kind: valid.spec.type,
    callSubject,
    resource: { ...valid, version },
  };
}
