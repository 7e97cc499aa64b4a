/**
 * An upstream's JSON Schema made into one Tollgate offers: draft 2020-12, only the keywords
 * the executor's strict validator knows (anything else — vendor keys, `$ref`, formats it does
 * not check — dropped, which only loosens annotations, never constraints it could enforce),
 * every object closed with `additionalProperties: false`. Deterministic, so the offered tool's
 * version hash is stable.
 */
import type { JsonObject, JsonSchema, JsonValue } from '@tollgate/core';

const SCALAR_KEYWORDS = [
  'type',
  'description',
  'title',
  'default',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
] as const;
const FORMATS = new Set(['ipv4', 'ipv6', 'uuid', 'date', 'date-time']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const MAX_DEPTH = 12;

/** The offered form of an upstream schema (an object schema at the top). */
export function offeredSchema(schema: unknown, depth = 0): JsonSchema {
  const source = isObject(schema) ? schema : {};
  const out: JsonObject = {};
  for (const key of SCALAR_KEYWORDS) {
    const value = source[key];
    if (value === undefined || !isJson(value)) continue;
    if (key === 'type' && !validType(value)) continue;
    if (key === 'pattern' && !validPattern(value)) continue;
    out[key] = value;
  }
  if (typeof source.format === 'string' && FORMATS.has(source.format)) out.format = source.format;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = source[key];
    if (Array.isArray(branches) && branches.length > 0 && depth < MAX_DEPTH) {
      out[key] = branches.map((branch) => offeredSchema(branch, depth + 1));
    }
  }
  const objectLike =
    out.type === 'object' ||
    (Array.isArray(out.type) && out.type.includes('object')) ||
    isObject(source.properties);
  if (objectLike) {
    if (out.type === undefined) out.type = 'object';
    const properties: JsonObject = {};
    const given = isObject(source.properties) ? source.properties : {};
    for (const name of Object.keys(given).sort()) {
      properties[name] = depth < MAX_DEPTH ? offeredSchema(given[name], depth + 1) : {};
    }
    out.properties = properties;
    const required = Array.isArray(source.required)
      ? source.required.filter((n): n is string => typeof n === 'string' && name_in(properties, n))
      : [];
    if (required.length > 0) out.required = [...new Set(required)].sort();
    out.additionalProperties = false;
  }
  const arrayLike = out.type === 'array' || (Array.isArray(out.type) && out.type.includes('array'));
  if (arrayLike) {
    out.items =
      isObject(source.items) && depth < MAX_DEPTH ? offeredSchema(source.items, depth + 1) : {};
  }
  pruneInapplicable(out);
  return out;
}

const BY_TYPE: Record<string, readonly string[]> = {
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  array: ['minItems', 'maxItems', 'uniqueItems', 'items'],
  object: ['minProperties', 'maxProperties', 'properties', 'required', 'additionalProperties'],
};

/** Strict mode refuses keywords of a type the schema does not have; an untyped leaf has none. */
function pruneInapplicable(out: JsonObject): void {
  const declared =
    typeof out.type === 'string' ? [out.type] : Array.isArray(out.type) ? out.type : [];
  const types = new Set(declared.map((t) => (t === 'integer' ? 'number' : String(t))));
  for (const [type, keywords] of Object.entries(BY_TYPE)) {
    if (types.has(type)) continue;
    for (const keyword of keywords) delete out[keyword];
  }
}

function name_in(properties: JsonObject, name: string): boolean {
  return Object.hasOwn(properties, name);
}

function validType(value: unknown): boolean {
  if (typeof value === 'string') return TYPES.has(value);
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((t) => typeof t === 'string' && TYPES.has(t))
  );
}

function validPattern(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 1000) return false;
  try {
    new RegExp(value, 'u');
    return true;
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isJson(value: unknown): value is JsonValue {
  try {
    return JSON.stringify(value) !== undefined;
  } catch {
    return false;
  }
}
