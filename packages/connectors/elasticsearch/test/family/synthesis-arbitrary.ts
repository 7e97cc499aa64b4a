/**
 * fast-check arbitraries for the synthesis property tests: values valid under a tool schema
 * (the subset of JSON Schema tools use), repaired for the rules a schema cannot say.
 */
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '@tollgate/core';

const SMALL_ARRAY = 4;

/** Values `schema` admits. */
export function valid(schema: JsonObject): fc.Arbitrary<JsonValue> {
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as JsonObject[]).map(valid));
  if ('const' in schema) return fc.constant(schema.const as JsonValue);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const types = ([] as JsonValue[]).concat(schema.type ?? []) as string[];
  if (types.length > 1) return fc.oneof(...types.map((type) => valid({ ...schema, type })));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({
        min: (schema.minimum as number | undefined) ?? Number.MIN_SAFE_INTEGER,
        max: (schema.maximum as number | undefined) ?? Number.MAX_SAFE_INTEGER,
      });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 });
    case 'string':
      return stringOf(schema);
    case 'array': {
      const min = (schema.minItems as number | undefined) ?? 0;
      const max = Math.min(
        (schema.maxItems as number | undefined) ?? SMALL_ARRAY,
        Math.max(min, SMALL_ARRAY),
      );
      const items = valid(schema.items as JsonObject);
      return schema.uniqueItems === true
        ? fc.uniqueArray(items, {
            minLength: min,
            maxLength: max,
            selector: (v) => JSON.stringify(v),
          })
        : fc.array(items, { minLength: min, maxLength: max });
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
      const required = (schema.required ?? []) as string[];
      const record = Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, valid(s)]));
      return fc.record(record, { requiredKeys: required }) as fc.Arbitrary<JsonValue>;
    }
    default:
      throw new Error(`no arbitrary for ${JSON.stringify(schema)}`);
  }
}

function stringOf(schema: JsonObject): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'date-time':
      return fc
        .date({
          min: new Date('1970-01-01T00:00:00Z'),
          max: new Date('2100-01-01T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString());
    case 'ipv4':
      return fc.ipV4();
    case 'ipv6':
      return fc.ipV6();
    default:
      return fc.string({
        minLength: (schema.minLength as number | undefined) ?? 0,
        maxLength: Math.min((schema.maxLength as number | undefined) ?? 40, 40),
      });
  }
}

/** Makes generated arguments meet what schemas cannot say: ordered between, distinct sort keys, a write setting something. */
export function repaired(args: JsonValue): JsonObject {
  const copy = structuredClone(args) as JsonObject;
  for (const filter of (copy.filters ?? []) as JsonObject[]) {
    if (filter.op === 'between') {
      const [a, b] = filter.value as (string | number)[];
      const swap =
        typeof a === 'string'
          ? Date.parse(a) > Date.parse(b as string)
          : (a as number) > (b as number);
      if (swap) filter.value = [b, a] as JsonValue;
    }
  }
  if (Array.isArray(copy.sort)) {
    const seen = new Set<JsonValue>();
    copy.sort = copy.sort.filter(
      (key) =>
        !seen.has((key as JsonObject).field ?? null) && seen.add((key as JsonObject).field ?? null),
    );
  }
  const document = copy.document as JsonObject | undefined;
  if (document !== undefined && Object.values(document).every((v) => v === null))
    document.id = 'set';
  return copy;
}
