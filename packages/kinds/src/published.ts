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

/**
 * The descriptor schemas as one self-contained document whose every `$ref` is local
 * (`#/definitions/<name>`): `definitions.ResourceDescriptor` is the union over the kinds (one
 * `oneOf` branch per kind, titled), `definitions.AgentDescriptor` and `PolicyDescriptor` the
 * others. Each source's definitions are renamed `<source>.<Name>` so kinds never collide. For
 * tools that resolve references within one document only (a form generator in a browser).
 */
export function selfContainedSchemas(): JsonSchema {
  const definitions: JsonObject = {};
  const absorb = (prefix: string, schema: JsonSchema): JsonSchema => {
    const rename = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rename);
      if (typeof node !== 'object' || node === null) return node;
      const out: JsonObject = {};
      for (const [key, value] of Object.entries(node as JsonObject)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')) {
          out[key] = `#/definitions/${prefix}.${value.slice('#/definitions/'.length)}`;
        } else if (key !== 'definitions' && key !== '$schema' && key !== '$id') {
          out[key] = rename(value) as JsonObject;
        }
      }
      return out;
    };
    for (const [name, definition] of Object.entries((schema.definitions ?? {}) as JsonObject)) {
      definitions[`${prefix}.${name}`] = rename(definition) as JsonObject;
    }
    return rename(schema) as JsonSchema;
  };
  const metadata = absorb('core', resourceMetadataSchema as JsonSchema);
  const kinds = resourceKinds.list().map((kind) => ({
    title: kind.title,
    type: 'object',
    properties: {
      apiVersion: { type: 'string', const: 'tollgate.dev/v1' },
      kind: { type: 'string', const: 'Resource' },
      metadata,
      spec: absorb(kind.type, kind.specSchema),
    },
    required: ['apiVersion', 'kind', 'metadata', 'spec'],
    additionalProperties: false,
  }));
  definitions.ResourceDescriptor = {
    description: 'A data system agents may use; spec.type selects the kind.',
    oneOf: kinds,
  } as JsonObject;
  definitions.AgentDescriptor = absorb('core', agentSchema as JsonSchema);
  definitions.PolicyDescriptor = absorb('core', policySchema as JsonSchema);
  return { $id: `${SCHEMA_BASE_ID}descriptors.self-contained.json`, definitions };
}
