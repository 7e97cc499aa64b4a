/**
 * Walks the subschemas of a tool schema the way tools build them (properties, items, anyOf,
 * $defs) with a readable path, so renderers and checkers never mistake a field named like a
 * keyword (`format`, `maxLength`) for the keyword itself.
 */
import type { JsonObject, JsonSchema, JsonValue } from './types.js';

/** One subschema, where it sits and how many object schemas enclose it (itself included). */
export interface SchemaVisit {
  schema: JsonSchema;
  path: string;
  objectDepth: number;
}

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `type` keyword as a list (empty when absent). */
export function typesOf(schema: JsonSchema): string[] {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

/** Every subschema of `root`, depth first, root first. */
export function walkSchema(root: JsonSchema, rootPath: string): SchemaVisit[] {
  const visits: SchemaVisit[] = [];
  const visit = (schema: JsonSchema, path: string, depth: number): void => {
    const objectDepth = typesOf(schema).includes('object') ? depth + 1 : depth;
    visits.push({ schema, path, objectDepth });
    for (const [key, sub] of Object.entries(schema)) {
      if ((key === 'properties' || key === '$defs') && isJsonObject(sub)) {
        for (const [name, child] of Object.entries(sub)) {
          if (isJsonObject(child)) visit(child, `${path}.${key}.${name}`, objectDepth);
        }
      } else if (key === 'items' && isJsonObject(sub)) {
        visit(sub, `${path}.items`, objectDepth);
      } else if (key === 'anyOf' && Array.isArray(sub)) {
        sub.forEach((child, i) => {
          if (isJsonObject(child)) visit(child, `${path}.anyOf[${i}]`, objectDepth);
        });
      }
    }
  };
  visit(root, rootPath, 0);
  return visits;
}

/** A copy of `schema` with `edit` applied to every subschema, children first. */
export function mapSchema(
  schema: JsonSchema,
  edit: (schema: JsonSchema) => JsonSchema,
): JsonSchema {
  const copy: JsonSchema = {};
  for (const [key, sub] of Object.entries(schema)) {
    if ((key === 'properties' || key === '$defs') && isJsonObject(sub)) {
      copy[key] = Object.fromEntries(
        Object.entries(sub).map(([name, child]) => [
          name,
          isJsonObject(child) ? mapSchema(child, edit) : child,
        ]),
      );
    } else if (key === 'items' && isJsonObject(sub)) {
      copy[key] = mapSchema(sub, edit);
    } else if (key === 'anyOf' && Array.isArray(sub)) {
      copy[key] = sub.map((child) => (isJsonObject(child) ? mapSchema(child, edit) : child));
    } else {
      copy[key] = sub;
    }
  }
  return edit(copy);
}
