/**
 * The shape of a tool call's arguments: the call with its values taken out (which filters on
 * which fields with which operators, which fields were requested, how it sorts). Calls of one
 * tool with one shape are the same question asked about different things; enough of them make
 * a saved-query candidate whose varying values become parameters.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '@tollgate/core';
import type { JsonObject, JsonValue } from '../types.js';
import type { SavedQueryParameter } from '../types.js';
import { pointerJoin } from '@tollgate/core';
import { SAVED_QUERY_NAME_MAX } from '../requests/names.js';

/** Keys whose values are part of a call's shape, not values the caller varies. */
const STRUCTURAL_KEYS = new Set(['field', 'op', 'order', 'kind', 'interval', 'fields', 'sort']);
/** Keys left out entirely: paging state is never part of a question. */
const IGNORED_KEYS = new Set(['cursor']);

/** One value position in a call: where it is, a readable name, and the value. */
export interface Slot {
  path: string;
  name: string;
  type: string;
  value: JsonValue;
}

export interface ArgumentShape {
  /** sha256 (hex) of the canonical skeleton; equal for calls that differ only in values. */
  key: string;
  /** The arguments normalised: nulls and paging removed, filters and fields in a fixed order. */
  normalised: JsonObject;
  slots: Slot[];
}

/** The shape of one call's arguments. */
export function argumentShape(args: JsonObject): ArgumentShape {
  const normalised = normalise(args) as JsonObject;
  const slots: Slot[] = [];
  const skeleton = skeletonOf(normalised, '', [], slots);
  nameSlots(slots, normalised);
  return {
    key: createHash('sha256').update(canonicalJson(skeleton)).digest('hex'),
    normalised,
    slots,
  };
}

function normalise(value: JsonValue, key = ''): JsonValue {
  if (Array.isArray(value)) {
    const items = value.filter((item) => item !== null).map((item) => normalise(item));
    if (key === 'fields' && items.every((item) => typeof item === 'string')) {
      return [...new Set(items as string[])].sort();
    }
    if (key === 'filters') return items.sort((a, b) => compare(filterKey(a), filterKey(b)));
    return items;
  }
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [childKey, child] of Object.entries(value)) {
    if (child === null || IGNORED_KEYS.has(childKey)) continue;
    out[childKey] = normalise(child, childKey);
  }
  return out;
}

function filterKey(filter: JsonValue): string {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    return canonicalJson(filter);
  }
  return canonicalJson([filter['field'] ?? null, filter['op'] ?? null, filter['value'] ?? null]);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function skeletonOf(value: JsonValue, path: string, keys: string[], slots: Slot[]): JsonValue {
  const key = keys.at(-1) ?? '';
  if (STRUCTURAL_KEYS.has(key)) return value;
  const isScalarArray =
    Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object');
  if (value === null || typeof value !== 'object' || isScalarArray) {
    slots.push({ path, name: '', type: jsonType(value), value });
    return { $slot: jsonType(value) };
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => skeletonOf(item, pointerJoin(path, index), keys, slots));
  }
  const out: JsonObject = {};
  for (const [childKey, child] of Object.entries(value)) {
    out[childKey] = skeletonOf(child, pointerJoin(path, childKey), [...keys, childKey], slots);
  }
  return out;
}

/** The JSON type of a value, as a parameter declares it. */
export function jsonType(value: JsonValue): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Names slots after what they filter on (`id`, `amount_gte`) or where they sit (`limit`). */
function nameSlots(slots: Slot[], args: JsonObject): void {
  const filters = Array.isArray(args['filters']) ? args['filters'] : [];
  const fieldCounts = new Map<string, number>();
  for (const filter of filters) {
    const field = fieldOf(filter);
    if (field !== undefined) fieldCounts.set(field, (fieldCounts.get(field) ?? 0) + 1);
  }
  const used = new Set<string>();
  for (const slot of slots) {
    const match = /^\/filters\/(\d+)\/value$/.exec(slot.path);
    const filter = match ? filters[Number(match[1])] : undefined;
    const field = fieldOf(filter);
    let base: string;
    if (field !== undefined) {
      const op = (filter as JsonObject)['op'];
      base = (fieldCounts.get(field) ?? 0) > 1 && typeof op === 'string' ? `${field}_${op}` : field;
    } else {
      base = slot.path
        .split('/')
        .filter((segment) => segment !== '' && !/^\d+$/.test(segment))
        .join('_');
    }
    slot.name = uniqueName(parameterName(base), used);
  }
}

function fieldOf(filter: JsonValue | undefined): string | undefined {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return undefined;
  const field = filter['field'];
  return typeof field === 'string' ? field : undefined;
}

function parameterName(raw: string): string {
  const cleaned = raw
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .slice(0, 56);
  return cleaned === '' ? 'value' : cleaned;
}

function uniqueName(base: string, used: Set<string>): string {
  let name = base;
  for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
  used.add(name);
  return name;
}

/** A value as a short digest, so signals compare values without storing them. */
export function valueDigest(value: JsonValue): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 24);
}

/** One observed use of a shape: which call, when, and a digest per slot path. */
export interface ShapeUse {
  callId: string;
  at: number;
  digests: Record<string, string>;
}

/** What a saved-query candidate proposes, from the uses of one tool and shape. */
export interface SavedQueryProposal {
  name: string;
  description: string;
  tool: string;
  arguments: JsonObject;
  parameters: SavedQueryParameter[];
}

/**
 * The saved query a set of same-shape uses suggests: every value of the call becomes a
 * parameter set to null in the arguments — also one that was the same in every use, since a
 * value repeated by an agent is no reason to keep it; only a person fixes a value, when they
 * confirm (see `fixParameters`). The structure (fields, operators, sort) is the shape's.
 * `uses` and `unsafePaths` say which values varied, for the description only.
 */
export function proposeSavedQuery(
  tool: string,
  latest: ArgumentShape,
  uses: readonly ShapeUse[],
  unsafePaths: ReadonlySet<string>,
): SavedQueryProposal {
  const args = structuredClone(latest.normalised);
  const parameters: SavedQueryParameter[] = [];
  const varying: string[] = [];
  for (const slot of latest.slots) {
    const digests = new Set(uses.map((use) => use.digests[slot.path]));
    if (digests.size !== 1 || digests.has(undefined) || unsafePaths.has(slot.path)) {
      varying.push(slot.name);
    }
    setAt(args, slot.path, null);
    parameters.push({
      name: slot.name,
      path: slot.path,
      type: slot.type === 'null' ? 'string' : slot.type,
      description: `Value for ${slot.name}.`,
    });
  }
  const named = varying.length > 0 ? varying : parameters.map((p) => p.name);
  const suffix = named.length > 0 ? `by_${named.join('_')}` : 'preset';
  const name = parameterName(`${tool}_${suffix}`).slice(0, SAVED_QUERY_NAME_MAX).replace(/_+$/, '');
  const description =
    parameters.length > 0
      ? `${tool} with ${parameters.map((p) => p.name).join(', ')} supplied by the caller; the rest as in the calls it was learned from.`
      : `${tool} exactly as called repeatedly before.`;
  return { name, description, tool, arguments: args, parameters };
}

/** Writes `value` at a JSON Pointer whose parent exists; false when it does not. */
export function setAt(root: JsonObject, pointer: string, value: JsonValue): boolean {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = segments.pop();
  if (last === undefined) return false;
  let node: JsonValue = root;
  for (const segment of segments) {
    if (node === null || typeof node !== 'object') return false;
    node = Array.isArray(node) ? (node[Number(segment)] ?? null) : (node[segment] ?? null);
  }
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) {
    const index = Number(last);
    if (!/^\d+$/.test(last) || index >= node.length) return false;
    node[index] = value;
  } else {
    node[last] = value;
  }
  return true;
}
