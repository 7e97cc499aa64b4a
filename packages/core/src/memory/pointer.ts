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

/** The value at `pointer` in `root` (own members only), or undefined when it is not there. */
export function valueAtPointer(root: JsonValue, pointer: string): JsonValue | undefined {
  if (pointer === '') return root;
  const keys = pointerKeys(pointer);
  if (keys === undefined) return undefined;
  let node: JsonValue | undefined = root;
  for (const key of keys) {
    if (node === undefined || node === null || typeof node !== 'object') return undefined;
    node = memberOf(node, key);
  }
  return node;
}

/**
 * Sets the member `pointer` names to `value`, when its container exists (own members only; an
 * array index must already be in range). False, changing nothing, otherwise.
 */
export function setAtPointer(root: JsonObject, pointer: string, value: JsonValue): boolean {
  const keys = pointerKeys(pointer);
  const parent = keys === undefined ? undefined : parentAt(root, keys);
  const last = keys?.at(-1);
  if (parent === undefined || last === undefined) return false;
  if (Array.isArray(parent)) parent[Number(last)] = value;
  else parent[last] = value;
  return true;
}
