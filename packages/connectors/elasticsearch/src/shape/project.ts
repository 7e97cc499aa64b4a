import { DROPPED, redactValue } from '@tollgate/core';
import type { RedactionMethod } from '@tollgate/core';

/**
 * Reduces a stored document to the visible fields, applying redaction rules. Both nested
 * objects (`{customer: {email}}`) and literal dotted keys (`{"customer.email": …}`) are
 * understood; arrays of objects are projected element by element. Anything not on a visible
 * path is left out, whatever the upstream returned.
 */
export function projectDocument(
  source: Record<string, unknown>,
  fields: readonly string[],
  redact: Readonly<Record<string, RedactionMethod>>,
): Record<string, unknown> {
  const visible = new Set(fields);
  const prefixes = new Set<string>();
  for (const field of fields) {
    const parts = field.split('.');
    for (let i = 1; i < parts.length; i += 1) prefixes.add(parts.slice(0, i).join('.'));
  }
  const rules = new Map(Object.entries(redact));
  const redactPrefixes = new Set([...rules.keys()].flatMap((path) => ancestors(path)));

  const walk = (
    node: Record<string, unknown>,
    prefix: string,
    whole: boolean,
  ): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(node)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      const value = node[key];
      const rule = rules.get(path);
      if (whole || visible.has(path)) {
        const kept = rule !== undefined ? redactValue(value, rule) : descend(value, path, true);
        if (kept !== DROPPED && kept !== undefined) define(out, key, kept);
      } else if (prefixes.has(path)) {
        const kept = descend(value, path, false);
        if (kept !== undefined) define(out, key, kept);
      }
    }
    return out;
  };

  // Below a visible path everything is kept (`whole`), except what a redaction rule names.
  const descend = (value: unknown, path: string, whole: boolean): unknown => {
    if (whole && !redactPrefixes.has(path)) return value;
    if (Array.isArray(value)) {
      const items = value
        .map((item) => descend(item, path, whole))
        .filter((item) => item !== undefined);
      return items.length > 0 || whole ? items : undefined;
    }
    if (typeof value === 'object' && value !== null) {
      const inner = walk(value as Record<string, unknown>, path, whole);
      return Object.keys(inner).length > 0 || whole ? inner : undefined;
    }
    return whole ? value : undefined;
  };

  return walk(source, '', false);
}

function ancestors(path: string): string[] {
  const parts = path.split('.');
  return parts.slice(1).map((_part, i) => parts.slice(0, i + 1).join('.'));
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
