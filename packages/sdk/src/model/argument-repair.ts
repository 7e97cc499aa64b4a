/**
 * How the scripted model corrects its arguments from a fix_arguments error, the way a real
 * model would read `details`: an enumerated `expected` picks its first allowed value, a bound
 * picks the bound, an unexpected property is dropped. Pure.
 */
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';

export interface ErrorDetailLike {
  path: string;
  message?: string;
  expected?: string;
  found?: string;
}

/** The corrected arguments, or undefined when no detail could be acted on. */
export function repairArguments(
  args: JsonObject,
  details: ErrorDetailLike[],
): JsonObject | undefined {
  const repaired = structuredClone(args);
  let changed = false;
  for (const detail of details) {
    const path = pathSegments(detail.path);
    if (path.length === 0) continue;
    const expected = detail.expected ?? '';
    if (expected.startsWith('only ')) {
      changed = remove(repaired, path) || changed;
      continue;
    }
    const value = replacement(expected);
    if (value !== undefined) changed = assign(repaired, path, value) || changed;
  }
  return changed ? repaired : undefined;
}

function replacement(expected: string): JsonValue | undefined {
  // `one of eq, in, exists for field "id"` or `one of "eq", "in" or "exists"`.
  const oneOf = /^one of (.+?)(?: for (?:field|property) .*)?$/.exec(expected);
  if (oneOf) {
    const first = oneOf[1]!.split(/,\s*|\s+or\s+/)[0]!.trim();
    return first.startsWith('"') ? (JSON.parse(first) as JsonValue) : first;
  }
  const bound = /a number (?:<=|>=|<|>|≤|≥) (-?\d+(?:\.\d+)?)/.exec(expected);
  if (bound) return Number(bound[1]);
  const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(expected.trim());
  if (quoted) return JSON.parse(expected.trim()) as JsonValue;
  return undefined;
}

/** `/filters/0/op` (JSON Pointer) or `filters[0].op` (readable path) → segments. */
export function pathSegments(path: string): string[] {
  if (path.startsWith('/')) {
    return path
      .slice(1)
      .split('/')
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  }
  const segments: string[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g)) {
    segments.push(m[1] ?? m[2] ?? JSON.parse(`"${m[3] ?? ''}"`));
  }
  return segments;
}

function parentOf(
  root: JsonObject,
  path: string[],
): Record<string, JsonValue> | JsonValue[] | undefined {
  let node: JsonValue = root;
  for (const segment of path.slice(0, -1)) {
    if (Array.isArray(node)) node = node[Number(segment)] ?? null;
    else if (typeof node === 'object' && node !== null) node = node[segment] ?? null;
    else return undefined;
  }
  return typeof node === 'object' && node !== null ? node : undefined;
}

function assign(root: JsonObject, path: string[], value: JsonValue): boolean {
  const parent = parentOf(root, path);
  const key = path[path.length - 1]!;
  if (parent === undefined) return false;
  if (Array.isArray(parent)) parent[Number(key)] = value;
  else parent[key] = value;
  return true;
}

function remove(root: JsonObject, path: string[]): boolean {
  const parent = parentOf(root, path);
  const key = path[path.length - 1]!;
  if (parent === undefined || Array.isArray(parent) || !(key in parent)) return false;
  delete parent[key];
  return true;
}
