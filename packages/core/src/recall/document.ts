/**
 * What recall indexes about a resource: its scope (tenant, environment), its name, what it
 * holds, its labels and its fields.
 */
import type { ResourceDescriptor } from '../descriptor/types.js';

/** The tenant and environment a search is confined to; never crossed. */
export interface RecallScope {
  tenant: string;
  environment: string;
}

export interface RecallDocument extends RecallScope {
  /** Unique across the whole index (not just the scope). */
  id: string;
  /** The resource name; `_` separates words. Ties in score break on it. */
  name: string;
  description?: string;
  labels?: Record<string, string>;
  fields?: { name: string; description?: string }[];
}

/** The recall document of a resource; `id` defaults to `<tenant>/<environment>/<name>`. */
export function recallDocumentFromResource(
  resource: ResourceDescriptor,
  id?: string,
): RecallDocument {
  const { name, tenant, environment, description, labels } = resource.metadata;
  return {
    id: id ?? `${tenant}/${environment}/${name}`,
    tenant,
    environment,
    name,
    ...(description !== undefined ? { description } : {}),
    ...(labels !== undefined ? { labels } : {}),
    fields: Object.entries(resource.spec.schema.fields).map(([field, spec]) => ({
      name: field,
      ...(spec.description !== undefined ? { description: spec.description } : {}),
    })),
  };
}
