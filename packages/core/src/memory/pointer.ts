/**
 * JSON Pointers into a saved query's arguments, read strictly: only own members are followed
 * (never a prototype), array indexes are canonical and in range, and the names that would
 * reach an object's prototype are refused. The parameters' paths come from a KV entry, so they
 * are checked when the entry is read and followed the same way when a call is expanded.
 */
import type { JsonObject, JsonValue } from '../tools/types.js';

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const INDEX = /^(?:0|[1-9][0-9]*)$/;

/** The keys of `pointer` (`/filters/0/value` → `filters`, `0`, `value`); undefined if malformed. */
export function pointerKeys(pointer: string): string[] | undefined {
  if (!pointer.startsWith('/')) return undefined;
  const keys = pointer
    .slice(1)
    .split('/')
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  return keys.some((k) => FORBIDDEN.has(k)) ? undefined : keys;
}

/** The container the last key of `keys` lives in, when every step exists as an own member. */
export function parentAt(
  root: JsonObject,
  keys: readonly string[],
): JsonObject | JsonValue[] | undefined {
  let node: JsonValue = root;
  for (const key of keys.slice(0, -1)) {
    const next = memberOf(node, key);
    if (next === undefined || next === null || typeof next !== 'object') return undefined;
    node = next;
  }
  if (node === null || typeof node !== 'object') return undefined;
  const last = keys.at(-1);
  if (last === undefined || (Array.isArray(node) && memberOf(node, last) === undefined))
    return undefined;
  return node;
}

function memberOf(node: JsonValue, key: string): JsonValue | undefined {
  if (Array.isArray(node)) return INDEX.test(key) ? node[Number(key)] : undefined;
  if (node === null || typeof node !== 'object') return undefined;
  return Object.hasOwn(node, key) ? node[key] : undefined;
}
