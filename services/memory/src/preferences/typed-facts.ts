/**
 * Facts are typed, not prose. Each kind but `free_text` has a value memory checks against live
 * state, and memory writes its words from that value (so what is recalled is the value, never
 * a writer's prose):
 *
 * | kind                | key                        | value                                            |
 * | ------------------- | -------------------------- | ------------------------------------------------ |
 * | `frequent_resource` | `frequent_resource:<name>` | a resource the owner's principal can call        |
 * | `preferred_fields`  | `preferred_fields:<tool>`  | fields of that tool's resource it may see        |
 * | `language`          | `language`                 | a BCP 47 language tag (stored in canonical form) |
 * | `free_text`         | any preference key         | none; the fact is its text, always staged        |
 */
import type { Principal } from '@tollgate/core';
import { TollgateError } from '@tollgate/core';
import type { LiveState } from '../live/policy-view.js';
import type { Problems } from '../requests/problems.js';
import type { JsonValue } from '../types.js';

export const FREE_TEXT = 'free_text';
export const TYPED_KINDS = ['frequent_resource', 'preferred_fields', 'language'] as const;
export type TypedKind = (typeof TYPED_KINDS)[number];
export const PREFERENCE_KINDS: readonly string[] = [...TYPED_KINDS, FREE_TEXT];

/** Fields a `preferred_fields` fact lists at most. */
const MAX_FIELDS = 50;
/** Operations whose calls name `fields`. */
const FIELD_OPERATIONS = new Set(['search', 'get']);

export function isTypedKind(kind: string): kind is TypedKind {
  return (TYPED_KINDS as readonly string[]).includes(kind);
}

/** A typed fact as stored: its key, canonical value and words. */
export interface TypedFact {
  key: string;
  value: JsonValue;
  text: string;
}

/**
 * Checks a typed fact for `principal` (whose memory it is: the owner's agent and user) and
 * returns it canonical, or adds problems under the request's field names. `key` may be empty
 * (derived from the value). POLICY_UNAVAILABLE when the tenant's live state is not known.
 */
export function checkTypedFact(
  kind: TypedKind,
  input: { key: string; value: JsonValue | undefined },
  principal: Principal,
  live: LiveState,
  problems: Problems,
): TypedFact | undefined {
  const { value } = input;
  const keyed = (key: string): boolean => {
    if (input.key === '' || input.key === key) return true;
    problems.add('key', `key of a ${kind} fact is ${key}`, key, input.key);
    return false;
  };
  switch (kind) {
    case 'language': {
      const tag = typeof value === 'string' ? canonicalLanguage(value) : undefined;
      if (tag === undefined) {
        problems.add(
          'value',
          'value is not a BCP 47 language tag',
          'e.g. "de", "pt-BR", "zh-Hant"',
        );
        return undefined;
      }
      return keyed('language')
        ? { key: 'language', value: tag, text: `Prefers language ${tag}.` }
        : undefined;
    }
    case 'frequent_resource': {
      if (typeof value !== 'string' || !/^[a-z][a-z0-9_]{2,62}$/.test(value)) {
        problems.add(
          'value',
          'value is not a resource name',
          'the name of a resource, e.g. es_orders',
        );
        return undefined;
      }
      const access = accessOf(live, principal, value);
      if (access.operations.length === 0) {
        problems.add(
          'value',
          `${value} is not a resource this principal can see`,
          'a resource it may call',
        );
        return undefined;
      }
      const key = `frequent_resource:${value}`;
      return keyed(key) ? { key, value, text: `Usually queries ${value}.` } : undefined;
    }
    case 'preferred_fields': {
      const tool = input.key.startsWith('preferred_fields:') ? input.key.slice(17) : '';
      const target = tool === '' ? undefined : live.toolOf(principal.tenant, tool);
      if (target === undefined || !FIELD_OPERATIONS.has(target.operation)) {
        problems.add(
          'key',
          'key must name a search or get tool of a resource: preferred_fields:<tool>',
          'e.g. preferred_fields:es_orders_search',
          input.key,
        );
        return undefined;
      }
      const fields = Array.isArray(value) ? value : undefined;
      if (
        fields === undefined ||
        fields.length === 0 ||
        fields.length > MAX_FIELDS ||
        !fields.every((f): f is string => typeof f === 'string')
      ) {
        problems.add('value', 'value is not a list of field names', `1-${MAX_FIELDS} field names`);
        return undefined;
      }
      const access = accessOf(live, principal, target.resource);
      if (!access.operations.includes(target.operation)) {
        problems.add('key', `${tool} is not a tool this principal may call`, 'one of its tools');
        return undefined;
      }
      const visible = new Set(access.visibleFields);
      const unknown = fields.filter((f) => !visible.has(f));
      if (unknown.length > 0) {
        problems.add(
          'value',
          `${unknown.length} of the fields are not fields of ${target.resource} this principal may see`,
          'fields of the resource schema it may see',
          unknown.slice(0, 5).join(', ').slice(0, 120),
        );
        return undefined;
      }
      const sorted = [...new Set(fields)].sort();
      return {
        key: input.key,
        value: sorted,
        text: `Prefers fields ${sorted.join(', ')} for ${tool}.`,
      };
    }
  }
}

/** `tag` in canonical BCP 47 form, or undefined when it is not a well-formed tag. */
export function canonicalLanguage(tag: string): string | undefined {
  if (tag.length === 0 || tag.length > 35 || !/^[A-Za-z0-9-]+$/.test(tag)) return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

function accessOf(live: LiveState, principal: Principal, resource: string) {
  const access = live.access(principal, resource);
  if (access === undefined) {
    throw new TollgateError(
      'POLICY_UNAVAILABLE',
      `Memory cannot check facts of tenant "${principal.tenant}" yet: its policy bundle is not loaded; retry shortly.`,
    );
  }
  return access;
}
