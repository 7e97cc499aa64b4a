/**
 * What the memory service projects for the services on the call path: approved saved queries
 * and active `preferred_fields` facts, in the `tollgate_memory` KV bucket. The synthesizer
 * offers saved queries as narrower tools and defaults `fields` from preferences; the executor
 * runs them from the same entries, so a revoked saved query stops working everywhere at once.
 *
 * Keys: `sq.<tenant>.<agent>.<user>.<name>` and `pf.<tenant>.<agent>.<user>.<tool>`, where
 * `<user>` is `_` for items of every user of the agent and otherwise `u-` + the user id in
 * base64url (user ids are free text; KV key tokens are not).
 */
import type { JsonObject } from '../tools/types.js';
import { parentAt, pointerKeys } from './pointer.js';

/** A value a saved query leaves open: where it goes in the arguments and its JSON type. */
export interface SavedQueryParameter {
  name: string;
  /** JSON Pointer into the arguments, e.g. `/filters/0/value`. */
  path: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  description: string;
}

/** The approved revision of one saved query. */
export interface PublishedSavedQuery {
  kind: 'saved_query';
  /** The capability's id in the memory service. */
  id: string;
  tenant: string;
  agent: string;
  /** '' = every user of the agent. */
  user: string;
  name: string;
  revision: number;
  /** Content hash of the approved revision; part of the offered tool's version. */
  contentHash: string;
  description: string;
  /** The tool it narrows, `<resource>_<operation>`. */
  tool: string;
  arguments: JsonObject;
  parameters: SavedQueryParameter[];
}

/** The fields an owner usually asks of a tool: the default when a call names none. */
export interface PublishedFieldPreference {
  kind: 'preferred_fields';
  /** The preference's id in the memory service. */
  id: string;
  tenant: string;
  agent: string;
  user: string;
  tool: string;
  fields: string[];
}

export type PublishedMemoryItem = PublishedSavedQuery | PublishedFieldPreference;

const TOKEN = /^[A-Za-z0-9_-]+$/;
const NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** The JSON types a saved-query parameter may have. */
export const SAVED_QUERY_PARAMETER_TYPES: ReadonlySet<string> = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'array',
]);
const PARAMETER_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** `_` for agent-wide items, else `u-` + base64url(user). */
export function memoryUserToken(user: string): string {
  return user === '' ? '_' : `u-${Buffer.from(user, 'utf8').toString('base64url')}`;
}

function ownerTokens(tenant: string, agent: string, user: string): string {
  for (const [what, value] of [
    ['tenant', tenant],
    ['agent', agent],
  ] as const) {
    if (!TOKEN.test(value)) throw new Error(`${what} ${JSON.stringify(value)} is not a key token`);
  }
  return `${tenant}.${agent}.${memoryUserToken(user)}`;
}

/** The key of an item in the memory bucket. */
export function memoryItemKey(item: PublishedMemoryItem): string {
  return item.kind === 'saved_query'
    ? savedQueryKey(item.tenant, item.agent, item.user, item.name)
    : fieldPreferenceKey(item.tenant, item.agent, item.user, item.tool);
}

export function savedQueryKey(tenant: string, agent: string, user: string, name: string): string {
  if (!NAME.test(name)) throw new Error(`saved query name ${JSON.stringify(name)} is not valid`);
  return `sq.${ownerTokens(tenant, agent, user)}.${name}`;
}

export function fieldPreferenceKey(
  tenant: string,
  agent: string,
  user: string,
  tool: string,
): string {
  if (!NAME.test(tool)) throw new Error(`tool name ${JSON.stringify(tool)} is not valid`);
  return `pf.${ownerTokens(tenant, agent, user)}.${tool}`;
}

/** What a memory bucket key names: the item's kind, its owner, and its saved-query or tool name. */
export interface MemoryItemKey {
  kind: PublishedMemoryItem['kind'];
  tenant: string;
  agent: string;
  user: string;
  /** The saved query's name, or the tool of a `preferred_fields` item. */
  name: string;
}

/** Reads a bucket key back; undefined for any key not spelled exactly as the builders spell it. */
export function parseMemoryItemKey(key: string): MemoryItemKey | undefined {
  const parts = key.split('.');
  if (parts.length !== 5) return undefined;
  const [prefix, tenant, agent, userToken, name] = parts as [
    string,
    string,
    string,
    string,
    string,
  ];
  const kind = prefix === 'sq' ? 'saved_query' : prefix === 'pf' ? 'preferred_fields' : undefined;
  if (kind === undefined) return undefined;
  let user = '';
  if (userToken !== '_') {
    if (!userToken.startsWith('u-')) return undefined;
    user = Buffer.from(userToken.slice(2), 'base64url').toString('utf8');
    if (user === '') return undefined;
  }
  try {
    const spelled =
      kind === 'saved_query'
        ? savedQueryKey(tenant, agent, user, name)
        : fieldPreferenceKey(tenant, agent, user, name);
    return spelled === key ? { kind, tenant, agent, user, name } : undefined;
  } catch {
    return undefined;
  }
}

/** The owners whose items a principal uses, most specific first: its user's, then the agent's. */
export function memoryOwnersOf(principal: {
  tenant: string;
  agent: string;
  user?: string;
}): { tenant: string; agent: string; user: string }[] {
  const agentWide = { tenant: principal.tenant, agent: principal.agent, user: '' };
  return principal.user ? [{ ...agentWide, user: principal.user }, agentWide] : [agentWide];
}

/**
 * Strictly reads a KV entry back, checking it belongs under `key`; returns a reason when it is
 * not a memory item (the caller then ignores it: fail closed).
 */
export function parsePublishedMemoryItem(
  key: string,
  bytes: Uint8Array,
): PublishedMemoryItem | { invalid: string } {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { invalid: 'not JSON' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { invalid: 'not an object' };
  const item = v as Record<string, unknown>;
  const strings = (names: string[]): string | undefined =>
    names.find((n) => typeof item[n] !== 'string');
  const missing = strings(['id', 'tenant', 'agent', 'user']);
  if (missing !== undefined) return { invalid: `${missing} is not a string` };
  let parsed: PublishedMemoryItem;
  if (item['kind'] === 'saved_query') {
    const bad = strings(['name', 'contentHash', 'description', 'tool']);
    if (bad !== undefined) return { invalid: `${bad} is not a string` };
    if (!Number.isSafeInteger(item['revision']) || (item['revision'] as number) < 1)
      return { invalid: 'revision is not a positive integer' };
    const args = item['arguments'];
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return { invalid: 'arguments is not an object' };
    const parameters = item['parameters'];
    if (!Array.isArray(parameters)) return { invalid: 'parameters is not an array' };
    const names = new Set<string>();
    const paths = new Set<string>();
    for (const [i, p] of parameters.entries()) {
      const param = p as Record<string, unknown>;
      if (
        typeof p !== 'object' ||
        p === null ||
        typeof param['name'] !== 'string' ||
        typeof param['path'] !== 'string' ||
        typeof param['description'] !== 'string' ||
        !SAVED_QUERY_PARAMETER_TYPES.has(param['type'] as string)
      ) {
        return { invalid: `parameters[${i}] is not a parameter` };
      }
      const { name, path } = param as { name: string; path: string };
      if (!PARAMETER_NAME.test(name) || names.has(name))
        return { invalid: `parameters[${i}].name is not a distinct parameter name` };
      const keys = pointerKeys(path);
      if (keys === undefined || paths.has(path) || parentAt(args as JsonObject, keys) === undefined)
        return { invalid: `parameters[${i}].path does not point into the arguments` };
      names.add(name);
      paths.add(path);
    }
    parsed = item as unknown as PublishedSavedQuery;
  } else if (item['kind'] === 'preferred_fields') {
    if (typeof item['tool'] !== 'string') return { invalid: 'tool is not a string' };
    const fields = item['fields'];
    if (!Array.isArray(fields) || !fields.every((f) => typeof f === 'string' && f !== ''))
      return { invalid: 'fields is not a list of field names' };
    parsed = item as unknown as PublishedFieldPreference;
  } else {
    return { invalid: 'kind is neither saved_query nor preferred_fields' };
  }
  let expected: string;
  try {
    expected = memoryItemKey(parsed);
  } catch (err) {
    return { invalid: (err as Error).message };
  }
  if (expected !== key) return { invalid: `entry belongs under ${expected}, stored under ${key}` };
  return parsed;
}
