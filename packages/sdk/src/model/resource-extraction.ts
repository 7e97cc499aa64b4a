/**
 * The scripted model's reading of a sentence that describes a resource: the first registered
 * kind whose rule-based reading recognises it gives the partial descriptor, as a model filling
 * the descriptor's JSON Schema would. Deliberately modest. Pure.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import type { ResourceKind } from '@tollgate/core';
import { resourceKinds } from '@tollgate/kinds';

export function extractResourceFromText(
  text: string,
  kinds: readonly Pick<ResourceKind, 'readFromText'>[] = resourceKinds.list(),
): JsonObject {
  for (const kind of kinds) {
    const read = kind.readFromText?.(text);
    if (read !== undefined) return read as JsonObject;
  }
  return {};
}

/** "amount is the total in euros" / "amount 是欧元总额": a field named, and what it is. */
const FIELD_IS =
  /^\s*(?:the\s+)?(?:field\s+)?[`"']?([A-Za-z_][\w.]*)[`"']?\s*(?:is|means|are|是|为|指)\s*(.+?)\s*[.。]?$/iu;

/**
 * The scripted reading of a correction to `current` (a partial descriptor): each sentence that
 * names a field the proposal holds and says what it is becomes that field's description. Returns
 * a JSON merge patch (empty when nothing was read). Pure.
 */
export function readCorrection(text: string, current: JsonObject): JsonObject {
  const fieldMaps = fieldMapPaths(current);
  let patch: JsonObject = {};
  for (const sentence of text.split(/[;；\n]|,\s*(?=[a-z_]+\s+(?:is|是)\s)/iu)) {
    const match = FIELD_IS.exec(sentence);
    if (match === null) continue;
    const [, field, meaning] = match as unknown as [string, string, string];
    const path = fieldMaps.find((p) => hasField(current, p, field));
    if (path === undefined) continue;
    patch = merge(patch, nest([...path, field], { description: meaning }));
  }
  return patch;
}

/** Paths of every `fields` map in the descriptor (e.g. spec.schema.fields). */
function fieldMapPaths(node: JsonObject, at: string[] = []): string[][] {
  const found: string[][] = [];
  for (const [key, value] of Object.entries(node)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    if (key === 'fields') found.push([...at, key]);
    else found.push(...fieldMapPaths(value, [...at, key]));
  }
  return found;
}

function hasField(node: JsonObject, path: string[], field: string): boolean {
  let at: unknown = node;
  for (const key of path) at = (at as JsonObject | undefined)?.[key];
  return typeof at === 'object' && at !== null && Object.hasOwn(at, field);
}

function nest(path: string[], leaf: JsonObject): JsonObject {
  return path.reduceRight<JsonObject>((inner, key) => ({ [key]: inner }), leaf);
}

function merge(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const prior = out[key];
    out[key] =
      typeof prior === 'object' &&
      prior !== null &&
      !Array.isArray(prior) &&
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value)
        ? merge(prior, value)
        : value;
  }
  return out;
}
