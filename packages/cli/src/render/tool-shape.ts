/**
 * What a synthesized tool allows, read back from its JSON Schema: filterable fields and their
 * operators, returnable fields, sort keys, the limit cap, writable fields and aggregations.
 * Pure; tolerant of nullable (`type: [..., "null"]`) and `anyOf` wrappers.
 */
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';

export interface ToolShape {
  /** Filterable field → operators, fields in name order. */
  filters: Record<string, string[]>;
  /** Fields the caller may ask to see. */
  fields: string[];
  sort: string[];
  limit?: number;
  /** `write` tools: fields the document may set. */
  writable: string[];
  /** `aggregate` tools: aggregation kind → fields. */
  aggregations: Record<string, string[]>;
}

export function toolShape(inputSchema: JsonObject): ToolShape {
  const properties = asObject(inputSchema.properties) ?? {};
  const shape: ToolShape = { filters: {}, fields: [], sort: [], writable: [], aggregations: {} };
  const filterItems = asObject(unwrap(properties.filters)?.items);
  for (const branch of variants(filterItems)) {
    const props = asObject(branch.properties);
    // A branch names one field (`per_field` layout) or the fields sharing its operators (`grouped`).
    const ops = enumOf(props?.op);
    for (const field of enumOf(props?.field)) {
      shape.filters[field] = unique([...(shape.filters[field] ?? []), ...ops]);
    }
  }
  shape.filters = Object.fromEntries(
    Object.entries(shape.filters).sort(([a], [b]) => a.localeCompare(b)),
  );
  shape.fields = enumOf(asObject(unwrap(properties.fields)?.items));
  const sortItem = asObject(asObject(unwrap(properties.sort)?.items)?.properties);
  shape.sort = enumOf(sortItem?.field);
  const limit = unwrap(properties.limit)?.maximum;
  if (typeof limit === 'number') shape.limit = limit;
  shape.writable = Object.keys(asObject(unwrap(properties.document)?.properties) ?? {}).sort();
  for (const branch of variants(unwrap(properties.aggregation))) {
    const props = asObject(branch.properties);
    const kind = constOf(props?.kind);
    if (kind !== undefined) shape.aggregations[kind] = enumOf(props?.field);
  }
  return shape;
}

/** Differences between two shapes, as `what: only-in-a | only-in-b` lines (for people). */
export function compareShapes(
  a: ToolShape,
  b: ToolShape,
): Array<{ aspect: string; onlyA: string[]; onlyB: string[] }> {
  const out: Array<{ aspect: string; onlyA: string[]; onlyB: string[] }> = [];
  const add = (aspect: string, x: string[], y: string[]) => {
    const onlyA = x.filter((v) => !y.includes(v));
    const onlyB = y.filter((v) => !x.includes(v));
    if (onlyA.length > 0 || onlyB.length > 0) out.push({ aspect, onlyA, onlyB });
  };
  add('filter fields', Object.keys(a.filters), Object.keys(b.filters));
  for (const field of Object.keys(a.filters).filter((f) => f in b.filters)) {
    add(`operators on ${field}`, a.filters[field] ?? [], b.filters[field] ?? []);
  }
  add('visible fields', a.fields, b.fields);
  add('sort keys', a.sort, b.sort);
  add(
    'limit',
    a.limit === undefined ? [] : [String(a.limit)],
    b.limit === undefined ? [] : [String(b.limit)],
  );
  return out;
}

/** The schema without a nullable wrapper (`anyOf: [X, {type: null}]`). */
function unwrap(value: JsonValue | undefined): JsonObject | undefined {
  const object = asObject(value);
  if (object === undefined) return undefined;
  const anyOf = object.anyOf;
  if (Array.isArray(anyOf)) {
    const nonNull = anyOf
      .map(asObject)
      .filter((v): v is JsonObject => v !== undefined && v.type !== 'null');
    if (nonNull.length === 1 && object.properties === undefined) return nonNull[0];
  }
  return object;
}

function variants(value: JsonValue | undefined): JsonObject[] {
  const object = asObject(value);
  if (object === undefined) return [];
  const alternatives = object.anyOf ?? object.oneOf;
  if (Array.isArray(alternatives)) {
    return alternatives.map(asObject).filter((v): v is JsonObject => v !== undefined);
  }
  return [object];
}

function constOf(value: JsonValue | undefined): string | undefined {
  const c = asObject(value)?.const;
  return typeof c === 'string' ? c : undefined;
}

function enumOf(value: JsonValue | undefined): string[] {
  const object = asObject(value);
  if (object === undefined) return [];
  if (typeof object.const === 'string') return [object.const];
  return Array.isArray(object.enum)
    ? object.enum.filter((v): v is string => typeof v === 'string')
    : [];
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}
