/**
 * The JSON Schema the model fills when it reads a resource out of a conversation: the
 * published Resource schema of every registered kind (metadata and one `spec` branch per kind,
 * `spec.type` saying which) with references inlined and nothing required (a partial
 * descriptor is fine — the registry's draft says what is still missing). `apiVersion` and
 * `kind` are added by the SDK; tenant and environment come from the caller's token. Pure.
 */
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { resourceMetadataSchema } from '@tollgate/core';
import type { ResourceKind } from '@tollgate/core';
import { resourceKinds } from '@tollgate/kinds';

const MAX_DEPTH = 24;

/** The function the model is made to call with the extracted descriptor. */
export const PROPOSE_RESOURCE_TOOL = 'propose_resource';

export function resourceExtractionSchema(
  kinds: readonly Pick<ResourceKind, 'type' | 'title' | 'specSchema'>[] = resourceKinds.list(),
): JsonObject {
  const metadata = partial(inlineRoot(resourceMetadataSchema as JsonObject)) as JsonObject;
  const {
    tenant: _tenant,
    environment: _environment,
    ...rest
  } = (metadata.properties ?? {}) as JsonObject;
  const specs = kinds.map((kind) => {
    const spec = partial(inlineRoot(kind.specSchema as JsonObject)) as JsonObject;
    return { title: kind.title, ...spec };
  });
  const [only] = specs;
  return {
    type: 'object',
    properties: {
      metadata: { ...metadata, properties: rest },
      spec:
        specs.length === 1 && only !== undefined
          ? only
          : { description: 'spec.type says which kind the resource is.', anyOf: specs },
    },
    additionalProperties: false,
  };
}

/** A published schema with its `$ref` into its own definitions inlined. */
function inlineRoot(schema: JsonObject): JsonObject {
  const definitions = schema.definitions;
  if (!isObject(definitions)) throw new Error('the schema has no definitions');
  const inlined = inline(schema, definitions, 0);
  if (!isObject(inlined)) throw new Error('the schema is not a schema object');
  return inlined;
}

function inline(node: JsonValue, definitions: JsonObject, depth: number): JsonValue {
  if (depth > MAX_DEPTH) throw new Error('the descriptor schema nests references too deeply');
  if (Array.isArray(node)) return node.map((item) => inline(item, definitions, depth));
  if (!isObject(node)) return node;
  const { $ref, ...rest } = node;
  let base: JsonObject = {};
  if (typeof $ref === 'string') {
    const name = /^#\/definitions\/(.+)$/.exec($ref)?.[1];
    const target = name === undefined ? undefined : definitions[name];
    if (!isObject(target)) throw new Error(`the descriptor schema refers to unknown ${$ref}`);
    base = inline(target, definitions, depth + 1) as JsonObject;
  }
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(rest)) {
    if (key === '$schema' || key === '$id' || key === 'definitions') continue;
    out[key] = inline(value, definitions, depth + 1);
  }
  return out;
}

/** Drops `required` everywhere: every part of the descriptor may be left out. */
function partial(node: JsonValue): JsonValue {
  if (Array.isArray(node)) return node.map(partial);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'required') continue;
    // Under `properties`, keys are field names, not keywords: recurse into each value only.
    out[key] =
      key === 'properties' && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([name, child]) => [name, partial(child)]))
        : partial(value);
  }
  return out;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
