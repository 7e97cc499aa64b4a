/**
 * The published descriptor schemas of this build: a Resource is a union over the registered
 * kinds (`spec.type` selects the branch; each kind's spec schema is embedded under its own
 * `$id`, so its definitions stay its own), and a descriptor is a Resource, Agent or Policy.
 * Generated into `schema/` by `pnpm gen:schema`; a test keeps the files current.
 */
import {
  SCHEMA_BASE_ID,
  agentSchema,
  kindSpecSchemaId,
  policySchema,
  resourceMetadataSchema,
  resourceSchemaFor,
} from '@tollgate/core';
import type { JsonObject, JsonSchema } from '@tollgate/core';
import { resourceKinds } from './descriptors.js';

/** File name → schema, for `schema/`. */
export function publishedSchemas(): Record<string, JsonSchema> {
  const kinds = resourceKinds.list();
  const embedded: JsonObject = {};
  for (const kind of kinds) {
    embedded[`kind.${kind.type}`] = {
      ...withoutMeta(kind.specSchema),
      $id: kindSpecSchemaId(kind.type),
    };
  }
  embedded.metadata = {
    ...withoutMeta(resourceMetadataSchema as JsonSchema),
    $id: resourceMetadataSchema.$id as string,
  };
  const branches = kinds.map(
    (kind) => ({ title: kind.title, ...(resourceSchemaFor(kind) as JsonSchema) }) as JsonSchema,
  );
  const resource: JsonSchema = {
    $id: `${SCHEMA_BASE_ID}resource.schema.json`,
    $schema: 'http://json-schema.org/draft-07/schema#',
    description: `A data system agents may use, of one of the kinds ${kinds.map((k) => k.type).join(', ')}; spec.type selects the kind.`,
    oneOf: branches,
    definitions: embedded,
  };
  const descriptor: JsonSchema = {
    $id: `${SCHEMA_BASE_ID}descriptor.schema.json`,
    $schema: 'http://json-schema.org/draft-07/schema#',
    description: 'Any declarative kind; `kind` selects Resource, Agent or Policy.',
    oneOf: [
      { $ref: resource.$id as string },
      { $ref: agentSchema.$id as string },
      { $ref: policySchema.$id as string },
    ],
  };
  return { 'resource.schema.json': resource, 'descriptor.schema.json': descriptor };
}

/**
 * A schema to embed: without `$schema` and `$id`, and a root `$ref` moved into `allOf` (draft-07
 * ignores a `$ref`'s siblings, so the embedded `$id` would not scope it).
 */
function withoutMeta(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, $ref, ...rest } = schema;
  return typeof $ref === 'string' ? { ...rest, allOf: [{ $ref }] } : rest;
}
