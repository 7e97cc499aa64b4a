import type { ResourceDescriptor } from './types.js';

/**
 * The current version of a resource as the registry projects it into the `tollgate_resources`
 * KV bucket (key `<tenant>.<environment>.<name>`). Executors and the synthesizer act only on
 * this: the descriptor has defaults applied and its schema merged with discovery, and only
 * confirmed fields carry capabilities.
 */
export interface PublishedResource {
  tenant: string;
  environment: string;
  name: string;
  version: number;
  /** Content hash of `descriptor` (canonical JSON, sha256). */
  hash: string;
  descriptor: ResourceDescriptor;
  publishedAt: string;
}

/** Strictly reads a KV value back; returns a reason when it is not a PublishedResource. */
export function parsePublishedResource(bytes: Uint8Array): PublishedResource | { invalid: string } {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { invalid: 'not JSON' };
  }
  const r = v as Partial<PublishedResource>;
  if (typeof r !== 'object' || r === null) return { invalid: 'not an object' };
  for (const k of ['tenant', 'environment', 'name', 'hash', 'publishedAt'] as const) {
    if (typeof r[k] !== 'string') return { invalid: `${k} is not a string` };
  }
  if (!Number.isInteger(r.version) || (r.version as number) < 1)
    return { invalid: 'version is not a positive integer' };
  if (
    typeof r.descriptor !== 'object' ||
    r.descriptor === null ||
    r.descriptor.kind !== 'Resource'
  ) {
    return { invalid: 'descriptor is not a Resource' };
  }
  return r as PublishedResource;
}
