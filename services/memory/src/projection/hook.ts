/** What the books tell the memory bucket's projection after a transition (see projector.ts). */
import type { Owner } from '../types.js';

/** What the books tell the projection after a transition. */
export interface ProjectionHook {
  /** The saved query `name` of `owner` was approved, replaced or deleted. */
  savedQueryChanged(owner: Owner, name: string): Promise<void>;
  /** The preference `key` of `owner` changed (keys other than `preferred_fields:*` are ignored). */
  preferenceChanged(owner: Owner, key: string): Promise<void>;
}
