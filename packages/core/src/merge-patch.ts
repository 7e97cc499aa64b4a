import type { JsonObject, JsonValue } from './tools/types.js';

/**
 * Applies a JSON merge patch (RFC 7386): objects merge key by key, `null` removes a key, any
 * other value (arrays included) replaces. Returns a new document.
 */
export function applyMergePatch(target: JsonValue, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return structuredClone(patch);
  const result: JsonObject = isObject(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else
      result[key] = applyMergePatch(
        Object.hasOwn(result, key) ? (result[key] as JsonValue) : null,
        value,
      );
  }
  return result;
}

function isObject(value: JsonValue): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
