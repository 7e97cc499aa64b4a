import type { JsonValue } from '../tools/types.js';
import { canonicalJson } from '../canonical.js';
import { joinPath } from './path.js';

/** How one path changed between two versions of a descriptor. */
export interface DiffEntry {
  /** Path in the document, e.g. `spec.schema.fields.amount.range`. */
  path: string;
  op: 'added' | 'removed' | 'changed';
  /** Value before (absent for `added`). */
  before?: JsonValue;
  /** Value after (absent for `removed`). */
  after?: JsonValue;
}

/**
 * The changes from `before` to `after`, one entry per leaf, sorted by path. Objects are
 * compared key by key; arrays and scalars are leaves (a changed list is one `changed` entry).
 * A new document (`before` undefined) is every leaf `added`.
 */
export function diffDocuments(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
): DiffEntry[] {
  const entries: DiffEntry[] = [];
  walk('', before, after, entries);
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function walk(
  path: string,
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  out: DiffEntry[],
): void {
  if (before === undefined && after === undefined) return;
  if (isObject(before) && isObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of keys)
      walk(joinPath(path, key), childOf(before, key), childOf(after, key), out);
    return;
  }
  if (before === undefined) return leaves(path, after, 'added', out);
  if (after === undefined) return leaves(path, before, 'removed', out);
  if (canonicalJson(before) === canonicalJson(after)) return;
  if (isObject(before) || isObject(after)) {
    leaves(path, before, 'removed', out);
    leaves(path, after, 'added', out);
    return;
  }
  out.push({ path, op: 'changed', before, after });
}

function leaves(
  path: string,
  value: JsonValue | undefined,
  op: 'added' | 'removed',
  out: DiffEntry[],
): void {
  if (value === undefined) return;
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const key of Object.keys(value)) leaves(joinPath(path, key), childOf(value, key), op, out);
    return;
  }
  out.push(op === 'added' ? { path, op, after: value } : { path, op, before: value });
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function childOf(value: { [key: string]: JsonValue }, key: string): JsonValue | undefined {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}
