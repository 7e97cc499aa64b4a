/**
 * The JSON Schema the model fills when it reads a resource out of a conversation: core's
 * published Resource descriptor schema with references inlined and nothing required (a partial
 * descriptor is fine — the registry's draft says what is still missing). `apiVersion` and `kind`
 * are added by the SDK; tenant and environment come from the caller's token. Pure.
 */
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { descriptorSchema } from '@tollgate/core';

const MAX_DEPTH = 24;

/** The function the model is made to call with the extracted descriptor. */
export const PROPOSE_RESOURCE_TOOL = 'propose_resource';

export function resourceExtractionSchema(
  source: JsonObject = descriptorSchema as JsonObject,
): JsonObject {
  const definitions = source.definitions;
  if (!isObject(definitions) || !isObject(definitions.ResourceDescriptor)) {
    throw new Error('the descriptor schema has no definitions.ResourceDescriptor');
  }
  const inlined = inline(definitions.ResourceDescriptor, definitions, 0);
  if (!isObject(inlined)) throw new Error('ResourceDescriptor is not a schema object');
  const root = partial(inlined) as JsonObject;
  const properties = { ...(root.properties as JsonObject) };
  delete properties.apiVersion;
  delete properties.kind;
  const metadata = properties.metadata;
  if (isObject(metadata) && isObject(metadata.properties)) {
    const { tenant: _tenant, environment: _environment, ...rest } = metadata.properties;
    properties.metadata = { ...metadata, properties: rest };
  }
  return { ...root, properties };
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
