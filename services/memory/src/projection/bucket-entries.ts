/**
 * What memory publishes to the call path, as pure functions: the entry an approved saved query
 * or an active `preferred_fields` fact becomes (core's PublishedSavedQuery and
 * PublishedFieldPreference), the key each item owns, and the reverse, from a bucket key back to
 * the item it stands for (so the reconciler can re-read any key it finds).
 */
import {
  SAVED_QUERY_PARAMETER_TYPES,
  canonicalJson,
  fieldPreferenceKey,
  parseMemoryItemKey,
  savedQueryKey,
} from '@tollgate/core';
import type { PublishedFieldPreference, PublishedSavedQuery } from '@tollgate/core';
import { approvedRevision } from '../capabilities/revisions.js';
import type { Capability, Owner, PreferenceRecord, SavedQueryContent } from '../types.js';

/** Preference keys `preferred_fields:<tool>` are the ones projected (when of that kind). */
export const PREFERRED_FIELDS = 'preferred_fields';
const PREFERRED_FIELDS_PREFIX = `${PREFERRED_FIELDS}:`;

/** One item that owns a key of the memory bucket. */
export type ProjectedItem =
  | { kind: 'saved_query'; owner: Owner; name: string }
  | { kind: 'preferred_fields'; owner: Owner; tool: string };

/** The item a preference key projects to, or undefined for keys never projected. */
export function fieldPreferenceItem(owner: Owner, key: string): ProjectedItem | undefined {
  return key.startsWith(PREFERRED_FIELDS_PREFIX)
    ? { kind: 'preferred_fields', owner, tool: key.slice(PREFERRED_FIELDS_PREFIX.length) }
    : undefined;
}

/** The preference key behind a `preferred_fields` item. */
export function preferenceKeyOf(tool: string): string {
  return `${PREFERRED_FIELDS_PREFIX}${tool}`;
}

/** The bucket key of an item; throws (core's message) when a name or owner cannot be a key. */
export function keyOf(item: ProjectedItem): string {
  const { tenant, agent, user } = item.owner;
  return item.kind === 'saved_query'
    ? savedQueryKey(tenant, agent, user, item.name)
    : fieldPreferenceKey(tenant, agent, user, item.tool);
}

/**
 * The item a bucket key stands for; undefined for a key memory never writes (including one
 * that decodes but is not spelled the way `keyOf` spells it).
 */
export function itemOfKey(key: string): ProjectedItem | undefined {
  const parsed = parseMemoryItemKey(key);
  if (parsed === undefined) return undefined;
  const { kind, tenant, agent, user, name } = parsed;
  const owner = { tenant, agent, user };
  return kind === 'saved_query'
    ? { kind, owner, name }
    : { kind: 'preferred_fields', owner, tool: name };
}

/** The entry of a saved query: its approved revision, or undefined while none is in effect. */
export function publishedSavedQuery(
  capability: Capability<SavedQueryContent>,
): PublishedSavedQuery | undefined {
  const revision = approvedRevision(capability);
  if (revision === undefined) return undefined;
  const { content } = revision;
  return {
    kind: 'saved_query',
    id: capability.id,
    ...capability.owner,
    name: capability.name,
    revision: revision.revision,
    contentHash: revision.contentHash,
    description: content.description,
    tool: content.tool,
    arguments: content.arguments,
    parameters: content.parameters.map((p) => {
      if (!SAVED_QUERY_PARAMETER_TYPES.has(p.type))
        throw new Error(`parameter ${p.name} has type ${p.type}`);
      return { ...p, type: p.type as PublishedSavedQuery['parameters'][number]['type'] };
    }),
  };
}

/**
 * The entry of a preference: only an active fact of kind `preferred_fields` under
 * `preferred_fields:<tool>` whose value is a non-empty list of field names is one.
 */
export function publishedFieldPreference(
  preference: PreferenceRecord,
): PublishedFieldPreference | undefined {
  const item = fieldPreferenceItem(preference.owner, preference.key);
  const { value } = preference;
  if (
    item?.kind !== 'preferred_fields' ||
    preference.status !== 'active' ||
    preference.kind !== PREFERRED_FIELDS ||
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((f) => typeof f === 'string')
  ) {
    return undefined;
  }
  return {
    kind: 'preferred_fields',
    id: preference.id,
    ...preference.owner,
    tool: item.tool,
    fields: value as string[],
  };
}

/** The bytes stored for an entry: canonical JSON, so equal entries compare equal as text. */
export function entryText(entry: PublishedSavedQuery | PublishedFieldPreference): string {
  return canonicalJson(entry);
}
