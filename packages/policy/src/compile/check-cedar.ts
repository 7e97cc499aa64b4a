import type { BundleOperation, PolicyProblem } from '../bundle/types.js';
import { zoneForKey, zoneKey } from '../model/clock.js';
import { bundleActions, cedarSchemaText } from '../model/schema.js';
import { checkRawCedar, clockKeysIn } from './raw-cedar.js';

/**
 * Checks a Policy's raw Cedar (`spec.cedar`) on its own, e.g. when an operator applies it:
 * parse errors and schema violations come back with 1-based line and column within the text.
 * `context.clock.<key>` may name any time zone by its key (`Europe_Berlin`). Actions are the
 * table family's plus those of `operations` (the tenant's resources' operations, when known).
 */
export function checkCedarPolicy(
  text: string,
  path = 'spec.cedar',
  operations: Readonly<Record<string, readonly BundleOperation[]>> = {},
): { ok: true; policies: number } | { ok: false; problems: PolicyProblem[] } {
  const keys = clockKeysIn(String(text));
  const unknown = keys.filter((key) => zoneForKey(key) === undefined);
  if (unknown.length > 0) {
    return {
      ok: false,
      problems: unknown.map((key) => ({
        path,
        message: `context.clock.${key}: no time zone has the key "${key}" (Europe/Berlin → ${zoneKey('Europe/Berlin')})`,
      })),
    };
  }
  const actions = bundleActions(operations);
  const checked = checkRawCedar(text, cedarSchemaText(keys.sort(), actions), path, actions);
  return checked.ok ? { ok: true, policies: checked.policies.length } : checked;
}
