import { createHash } from 'node:crypto';

import type { AccessSpec, RedactionMethod, RedactionRule } from '../descriptor/types.js';
import type { PermissionSet } from '../tools/types.js';

/** Marker `redactValue` returns for a `drop` rule: the caller removes the key. */
export const DROPPED: unique symbol = Symbol('dropped');

const MASK = '***';

/**
 * Applies one redaction rule to a value before it reaches the agent:
 * - `mask` → `"***"` (null stays null, so absence is still visible);
 * - `last4` → `"***"` followed by the last 4 characters of the value as text (just `"***"`
 *   when the value has 4 characters or fewer);
 * - `hash` → `"sha256:"` and the first 16 hex digits of the SHA-256 of the value as text
 *   (stable, so equal values stay comparable);
 * - `drop` → `DROPPED`.
 * Arrays are redacted element by element; objects are masked whole.
 */
export function redactValue(value: unknown, rule: RedactionMethod): unknown {
  if (rule === 'drop') return DROPPED;
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, rule));
  if (typeof value === 'object') return MASK;
  const text = String(value);
  switch (rule) {
    case 'mask':
      return MASK;
    case 'last4':
      return text.length > 4 ? `${MASK}${text.slice(-4)}` : MASK;
    case 'hash':
      return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  }
}

/** The method of a rule, whatever its form. */
export function redactionMethod(rule: RedactionRule): RedactionMethod {
  return typeof rule === 'string' ? rule : rule.rule;
}

/** The roles a rule exempts (none for a plain method). */
export function redactionExemptRoles(rule: RedactionRule): readonly string[] {
  return typeof rule === 'string' ? [] : rule.exceptRoles;
}

/**
 * The redaction that applies to `field` for the principal `permissions` belong to: the
 * declared rule's method, unless the principal holds a role the rule exempts (the policy
 * engine lists such fields in `unredactedFields`). Undefined when the field is shown as stored.
 */
export function redactionFor(
  access: Pick<AccessSpec, 'redact'>,
  field: string,
  permissions: Pick<PermissionSet, 'unredactedFields'>,
): RedactionMethod | undefined {
  const redact = access.redact;
  if (redact === undefined || !Object.hasOwn(redact, field)) return undefined;
  if (permissions.unredactedFields?.includes(field) === true) return undefined;
  return redactionMethod(redact[field] as RedactionRule);
}

/** Every redaction that applies for the principal `permissions` belong to, by field. */
export function effectiveRedactions(
  access: Pick<AccessSpec, 'redact'>,
  permissions: Pick<PermissionSet, 'unredactedFields'>,
): Record<string, RedactionMethod> {
  const out: Record<string, RedactionMethod> = {};
  for (const field of Object.keys(access.redact ?? {})) {
    const method = redactionFor(access, field, permissions);
    if (method !== undefined) out[field] = method;
  }
  return out;
}
