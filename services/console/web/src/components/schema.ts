/**
 * Reading a JSON Schema to draw a form from it: `$ref`s resolved against the root,
 * `allOf` merged (an `if`/`then` applies when its `const`s match the value), `anyOf`/`oneOf`
 * branches named by their discriminating `const`. Nothing here knows any resource kind.
 */
export type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  if?: Schema;
  then?: Schema;
  else?: Schema;
  description?: string;
  title?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  uniqueItems?: boolean;
  format?: string;
  pattern?: string;
  [key: string]: unknown;
};

export function deref(schema: Schema | undefined, root: Schema, depth = 0): Schema {
  if (schema === undefined) return {};
  if (typeof schema.$ref === 'string' && depth < 32) {
    const target = schema.$ref.startsWith('#/')
      ? schema.$ref
          .slice(2)
          .split('/')
          .reduce<unknown>(
            (node, key) =>
              (node as Record<string, unknown> | undefined)?.[
                key.replace(/~1/g, '/').replace(/~0/g, '~')
              ],
            root,
          )
      : undefined;
    const { $ref: _ref, ...rest } = schema;
    return deref({ ...(target as Schema), ...rest }, root, depth + 1);
  }
  return schema;
}

function matches(condition: Schema, value: unknown, root: Schema): boolean {
  const c = deref(condition, root);
  if (c.const !== undefined) return value === c.const;
  if (c.enum) return c.enum.includes(value);
  if (c.properties) {
    if (typeof value !== 'object' || value === null) return false;
    return Object.entries(c.properties).every(([k, s]) =>
      matches(s, (value as Record<string, unknown>)[k], root),
    );
  }
  return true;
}

/** The schema with `$ref` followed and `allOf` (including applicable `if`/`then`) merged in. */
export function effective(schema: Schema | undefined, root: Schema, value: unknown): Schema {
  let s = deref(schema, root);
  if (!s.allOf) return s;
  const { allOf, ...base } = s;
  s = base;
  for (const part of allOf) {
    let piece = deref(part, root);
    if (piece.if) {
      const chosen = matches(piece.if, value, root) ? piece.then : piece.else;
      if (!chosen) continue;
      piece = effective(chosen, root, value);
    }
    s = {
      ...piece,
      ...s,
      properties: { ...(piece.properties ?? {}), ...(s.properties ?? {}) },
      required: [...new Set([...(piece.required ?? []), ...(s.required ?? [])])],
    };
  }
  return s;
}

export function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  if (schema.type) return schema.type;
  if (schema.properties || schema.additionalProperties) return 'object';
  if (schema.items) return 'array';
  if (schema.enum && schema.enum.every((v) => typeof v === 'string')) return 'string';
  return undefined;
}

/** The property and value that tell one branch of an `anyOf` from the others (e.g. `field: "id"`). */
export function discriminator(branch: Schema, root: Schema): [string, unknown] | undefined {
  const b = deref(branch, root);
  for (const [key, prop] of Object.entries(b.properties ?? {})) {
    const p = deref(prop, root);
    if (p.const !== undefined) return [key, p.const];
    if (p.enum?.length === 1) return [key, p.enum[0]];
  }
  return undefined;
}

export function branchLabel(branch: Schema, root: Schema, index: number): string {
  const d = discriminator(branch, root);
  if (d) return String(d[1]);
  const b = deref(branch, root);
  return b.title ?? (typeof b.type === 'string' ? b.type : `option ${index + 1}`);
}

/** Which branch a value belongs to (its discriminating const), else the first. */
export function branchOf(branches: Schema[], root: Schema, value: unknown): number {
  const i = branches.findIndex((b) => {
    const d = discriminator(b, root);
    return (
      d !== undefined &&
      typeof value === 'object' &&
      value !== null &&
      (value as Record<string, unknown>)[d[0]] === d[1]
    );
  });
  return i < 0 ? 0 : i;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The server's path notation: `spec.access.maxLimit`, `filters[0]`, `fields["a.b"]`. */
export function joinPath(base: string, segment: string | number): string {
  if (typeof segment === 'number') return `${base}[${segment}]`;
  if (!IDENTIFIER.test(segment)) return `${base}[${JSON.stringify(segment)}]`;
  return base === '' ? segment : `${base}.${segment}`;
}

/** A value with empty strings, empty objects and empty arrays of optional places removed. */
export function prune(value: unknown): unknown {
  if (value === '' || value === undefined) return undefined;
  if (Array.isArray(value)) return value;
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const p = prune(v);
      if (p !== undefined) out[k] = p;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}
