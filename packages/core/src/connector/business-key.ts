/**
 * Business idempotency keys: a write operation's declared rule (`access.idempotency`) turns
 * the call's arguments into one key shared by every caller of the resource, so the same ticket
 * filed by two agents, or twice by one, is created once. Pure.
 */
import { canonicalHash } from '../canonical.js';
import type { IdempotencyRule } from '../descriptor/types.js';

/** The rule the resource declares for `operation`, if any. */
export function idempotencyRuleOf(
  access: { idempotency?: Record<string, IdempotencyRule> },
  operation: string,
): IdempotencyRule | undefined {
  const rules = access.idempotency;
  return rules !== undefined && Object.hasOwn(rules, operation) ? rules[operation] : undefined;
}

/**
 * The key of one call: a digest of the operation, the values at the rule's pointers (an absent
 * value counts as `null`, so leaving an argument out is one key, not a way around it) and the
 * UTC window `now` falls in. Strings compare as sent: the rule names what makes two requests
 * the same business request.
 */
export function businessIdempotencyKey(
  rule: IdempotencyRule,
  operation: string,
  args: unknown,
  now: number,
): string {
  const values = rule.key.map((pointer) => valueAt(args, pointer) ?? null);
  const iso = new Date(now).toISOString();
  const window =
    rule.window === 'none' ? '' : rule.window === 'hour' ? iso.slice(0, 13) : iso.slice(0, 10);
  return `biz-${canonicalHash([operation, values, window])}`;
}

function valueAt(value: unknown, pointer: string): unknown {
  let node = value;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
