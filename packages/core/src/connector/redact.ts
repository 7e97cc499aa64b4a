import { createHash } from 'node:crypto';

import type { RedactionRule } from '../descriptor/types.js';

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
export function redactValue(value: unknown, rule: RedactionRule): unknown {
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
