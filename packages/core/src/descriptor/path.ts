/**
 * Paths into a descriptor, written the way a JavaScript reader would: `spec.access.maxLimit`,
 * `spec.grants[0].actions[1]`, and keys that are not plain identifiers in brackets,
 * `spec.schema.fields["customer.email"].type`. The root is the empty string.
 */
export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends one key or index to an already formatted path. */
export function joinPath(base: string, segment: PathSegment): string {
  if (typeof segment === 'number') return `${base}[${segment}]`;
  if (!IDENTIFIER.test(segment)) return `${base}[${JSON.stringify(segment)}]`;
  return base === '' ? segment : `${base}.${segment}`;
}

/** Formats a list of keys and indexes as a path. */
export function formatPath(segments: readonly PathSegment[]): string {
  return segments.reduce<string>((path, segment) => joinPath(path, segment), '');
}

/**
 * Converts a JSON pointer (`/spec/schema/fields/customer.email`) to path segments; `root`, the
 * document the pointer points into, tells array indexes from object keys that look numeric.
 */
export function pointerSegments(pointer: string, root?: unknown): PathSegment[] {
  if (pointer === '') return [];
  const segments: PathSegment[] = [];
  let node = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const isIndex = Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(key);
    segments.push(isIndex ? Number(key) : key);
    node = isIndex ? (node as unknown[])[Number(key)] : childOf(node, key);
  }
  return segments;
}

function childOf(node: unknown, key: string): unknown {
  if (node === null || typeof node !== 'object') return undefined;
  return Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
}

/** Splits a formatted path back into keys and indexes (the inverse of `formatPath`). */
export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  const token = /(?:^|\.)([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  let match: RegExpExecArray | null;
  while (token.lastIndex < path.length && (match = token.exec(path)) !== null) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(JSON.parse(match[3] ?? '""') as string);
  }
  return segments;
}
