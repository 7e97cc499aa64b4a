/**
 * Discriminated `anyOf`s (filter branches keyed by field and op, aggregations by kind and
 * field) validated by lookup instead of by trying every branch. Ajv compiles every branch of
 * an anyOf into one function — megabytes of code and a second of compile time for a wide
 * resource — so the schema is split: the root is compiled without those anyOfs, and each
 * value found where one stood is checked against only the branches its discriminators select,
 * each branch compiled on first use. A value is valid exactly when the full schema says so.
 */
import { isJsonObject } from './schema-walk.js';
import type { JsonSchema, JsonValue } from './types.js';

/** One anyOf taken out of the root schema. */
export interface DiscriminatedAnyOf {
  /** Schema keys from the root to the node that held the anyOf (`properties`, name, `items`). */
  at: string[];
  branches: JsonSchema[];
  /** Properties every branch pins with const or enum, in the first branch's order. */
  discriminators: string[];
  /** Discriminator values, one level per discriminator → indexes of the branches admitting them. */
  table: DispatchTable;
}

/** A trie over discriminator values (strings, numbers, booleans); leaves list branch indexes. */
export type DispatchTable = Map<string | number | boolean, DispatchTable | number[]>;

/** A schema split for validation: the root without its discriminated anyOfs, and those anyOfs. */
export interface SplitSchema {
  root: JsonSchema;
  anyOfs: DiscriminatedAnyOf[];
}

/** Splits `schema`; anyOfs whose branches share no const/enum property stay in the root. */
export function splitDiscriminated(schema: JsonSchema): SplitSchema {
  const anyOfs: DiscriminatedAnyOf[] = [];
  const visit = (node: JsonSchema, at: string[]): JsonSchema => {
    const copy: JsonSchema = {};
    for (const [key, sub] of Object.entries(node)) {
      if (key === 'properties' && isJsonObject(sub)) {
        copy[key] = Object.fromEntries(
          Object.entries(sub).map(([name, child]) => [
            name,
            isJsonObject(child) ? visit(child, [...at, 'properties', name]) : child,
          ]),
        );
      } else if (key === 'items' && isJsonObject(sub)) {
        copy[key] = visit(sub, [...at, 'items']);
      } else if (key === 'anyOf' && Array.isArray(sub) && sub.every(isJsonObject)) {
        const branches = sub as JsonSchema[];
        const discriminators = discriminatorKeys(branches);
        const table =
          discriminators.length > 0 ? dispatchTable(branches, discriminators) : undefined;
        if (table === undefined) copy[key] = sub;
        else anyOfs.push({ at, branches, discriminators, table });
      } else {
        copy[key] = sub;
      }
    }
    return copy;
  };
  return { root: visit(schema, []), anyOfs };
}

/** Properties every branch pins with const or enum, in the first branch's order. */
export function discriminatorKeys(branches: JsonSchema[]): string[] {
  const [first] = branches;
  if (first === undefined || !isJsonObject(first.properties)) return [];
  return Object.keys(first.properties).filter((key) =>
    branches.every((branch) => pinnedValues(branch, key).length > 0),
  );
}

/** The values a branch's const or enum admits for `key` (empty when it pins none). */
export function pinnedValues(branch: JsonSchema, key: string): JsonValue[] {
  const property = isJsonObject(branch.properties) ? branch.properties[key] : undefined;
  if (!isJsonObject(property)) return [];
  if ('const' in property) return [property.const as JsonValue];
  return Array.isArray(property.enum) ? property.enum : [];
}

/** The branches whose discriminators admit `value`'s (an empty list when none does). */
export function candidates(anyOf: DiscriminatedAnyOf, value: unknown): number[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const record = value as Record<string, unknown>;
  let node: DispatchTable | number[] | undefined = anyOf.table;
  for (const key of anyOf.discriminators) {
    if (node === undefined || Array.isArray(node) || !Object.hasOwn(record, key)) return [];
    const given = record[key];
    const primitive =
      typeof given === 'string' || typeof given === 'number' || typeof given === 'boolean';
    node = primitive ? node.get(given) : undefined;
  }
  return Array.isArray(node) ? node : [];
}

/** Where in `data` the values an anyOf at `at` governs sit, with their JSON pointers. */
export function valuesAt(data: unknown, at: string[]): [unknown, string][] {
  let found: [unknown, string][] = [[data, '']];
  for (let i = 0; i < at.length; i++) {
    const next: [unknown, string][] = [];
    for (const [value, pointer] of found) {
      if (at[i] === 'items') {
        if (Array.isArray(value)) value.forEach((item, n) => next.push([item, `${pointer}/${n}`]));
      } else {
        const name = at[++i] as string;
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
          const record = value as Record<string, unknown>;
          if (Object.hasOwn(record, name)) next.push([record[name], `${pointer}/${escape(name)}`]);
        }
      }
    }
    found = next;
  }
  return found;
}

/** The dispatch trie, or undefined when a pinned value is not a string, number or boolean. */
function dispatchTable(
  branches: JsonSchema[],
  discriminators: string[],
): DispatchTable | undefined {
  const table: DispatchTable = new Map();
  for (const [index, branch] of branches.entries()) {
    let level: DispatchTable[] = [table];
    for (const [depth, key] of discriminators.entries()) {
      const last = depth === discriminators.length - 1;
      const next: DispatchTable[] = [];
      for (const value of pinnedValues(branch, key)) {
        if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
          return undefined;
        }
        for (const node of level) {
          const child = node.get(value);
          if (last) node.set(value, [...((child as number[] | undefined) ?? []), index]);
          else if (child instanceof Map) next.push(child);
          else {
            const created: DispatchTable = new Map();
            node.set(value, created);
            next.push(created);
          }
        }
      }
      level = next;
    }
  }
  return table;
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
