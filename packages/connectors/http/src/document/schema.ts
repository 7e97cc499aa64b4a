/**
 * JSON Schemas out of an OpenAPI document. OpenAPI 3.0 writes `nullable: true` beside `type`
 * and allows annotations JSON Schema does not know; 3.1 schemas are JSON Schema already. Two
 * readings: the full one responses are validated with, and the small closed one tools offer.
 */

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Annotations of OpenAPI 3.0 that are not JSON Schema (dropped). */
const OPENAPI_ONLY = new Set(['nullable', 'example', 'xml', 'externalDocs', 'discriminator']);

/** Subschema-holding keywords whose values are schemas, arrays of schemas or maps of schemas. */
const ONE = ['items', 'not', 'additionalProperties', 'contains', 'if', 'then', 'else'];
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions'];

/**
 * The JSON Schema (2020-12 reading) of a dereferenced OpenAPI schema: `nullable` becomes a
 * `null` type, OpenAPI-only annotations go, every subschema likewise. A shared subschema (refs
 * resolved to one object) is converted once; a cycle is cut to `{}`.
 */
export function toJsonSchema(
  schema: unknown,
  seen: WeakMap<object, Schema> = new WeakMap(),
): Schema {
  if (!isObject(schema)) return {};
  const done = seen.get(schema);
  if (done !== undefined) return done;
  const out: Schema = {};
  seen.set(schema, out);
  for (const [key, value] of Object.entries(schema)) {
    if (OPENAPI_ONLY.has(key) || key.startsWith('x-')) continue;
    if (ONE.includes(key) && isObject(value)) out[key] = toJsonSchema(value, seen);
    else if (MANY.includes(key) && Array.isArray(value))
      out[key] = value.map((item) => toJsonSchema(item, seen));
    else if (MAP.includes(key) && isObject(value))
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, toJsonSchema(sub, seen)]),
      );
    else out[key] = value;
  }
  if (schema['nullable'] === true) {
    if (typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
    else if (Array.isArray(out['type']) && !out['type'].includes('null'))
      out['type'] = [...(out['type'] as unknown[]), 'null'];
    if (Array.isArray(out['enum']) && !out['enum'].includes(null))
      out['enum'] = [...(out['enum'] as unknown[]), null];
  }
  return out;
}

/** JSON Schema types of a schema, `null` left out. */
export function typesOf(schema: Schema): string[] {
  const type = schema['type'];
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : [];
  return types.filter((t): t is string => typeof t === 'string' && t !== 'null');
}

/** Formats tools may carry (the ones the executor's validator checks). */
const TOOL_FORMATS = new Set(['date', 'date-time', 'email', 'uri', 'uuid']);
const SCALAR_KEYS = [
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
];

/**
 * The closed schema a tool offers for one value: one type, bounds, enums and known formats
 * only, objects closed (`additionalProperties: false`), depth-limited. Undefined when the value
 * has no single JSON type a model could fill (then it is not offered).
 */
export function toolValueSchema(schema: Schema, depth = 0): Schema | undefined {
  const branches = schema['oneOf'] ?? schema['anyOf'];
  if (schema['type'] === undefined && Array.isArray(branches)) {
    // A choice of types: offer the first branch a model can fill.
    for (const branch of branches) {
      const offered = isObject(branch) ? toolValueSchema(branch, depth + 1) : undefined;
      if (offered !== undefined) return offered;
    }
    return undefined;
  }
  const types = typesOf(schema);
  if (types.length !== 1 || depth > 4) return undefined;
  const type = types[0] as string;
  const out: Schema = { type };
  if (typeof schema['description'] === 'string') out['description'] = schema['description'];
  if (Array.isArray(schema['enum'])) {
    const values = schema['enum'].filter((v) => v !== null && typeof v !== 'object');
    if (values.length > 0) out['enum'] = values;
  }
  if (typeof schema['format'] === 'string' && TOOL_FORMATS.has(schema['format']))
    out['format'] = schema['format'];
  for (const key of SCALAR_KEYS) if (schema[key] !== undefined) out[key] = schema[key];
  if (type === 'array') {
    const items = isObject(schema['items'])
      ? toolValueSchema(schema['items'], depth + 1)
      : undefined;
    if (items === undefined) return undefined;
    out['items'] = items;
  }
  if (type === 'object') {
    const properties: Schema = {};
    for (const [name, sub] of Object.entries(
      isObject(schema['properties']) ? schema['properties'] : {},
    )) {
      const value = isObject(sub) ? toolValueSchema(sub, depth + 1) : undefined;
      if (value !== undefined) properties[name] = value;
    }
    const required = Array.isArray(schema['required'])
      ? schema['required'].filter(
          (name): name is string => typeof name === 'string' && name in properties,
        )
      : [];
    out['properties'] = properties;
    if (required.length > 0) out['required'] = required;
    out['additionalProperties'] = false;
  }
  return out;
}

/** The same schema, also admitting `null` (an optional argument OpenAI strict mode still sends). */
export function orNull(schema: Schema): Schema {
  const type = schema['type'];
  const out: Schema = { ...schema, type: typeof type === 'string' ? [type, 'null'] : type };
  if (Array.isArray(schema['enum'])) out['enum'] = [...(schema['enum'] as unknown[]), null];
  return out;
}
