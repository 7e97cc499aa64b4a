/**
 * What a kind of capability (saved query, skill) declares to the book that stores it: how its
 * content is checked, named, serialised and indexed.
 */
import type { Problems } from '../requests/problems.js';
import type { CapabilityKind, JsonObject } from '../types.js';

/** What differs between saved queries and skills. */
export interface CapabilitySpec<C> {
  kind: CapabilityKind;
  /** `saved query` or `skill`, for messages. */
  label: string;
  /** Checks and screens content, reporting problems under the request's field names. */
  check(content: C, problems: Problems): void;
  /** Rules on names beyond NAME (checked when a capability is created or edited). */
  checkName?(name: string, problems: Problems): void;
  toJson(content: C): JsonObject;
  fromJson(json: JsonObject): C;
  /** A value to index for listing by (e.g. the saved query's tool). */
  indexKey?(content: C): string;
}
