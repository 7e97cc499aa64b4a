/** The descriptor hash: sha256 over the canonical JSON of a descriptor. */
import { canonicalHash } from '../canonical.js';
import type { Descriptor } from './types.js';

export { canonicalJson } from '../canonical.js';

/** sha256 of the descriptor's canonical JSON, lowercase hex (64 characters). */
export function descriptorHash(descriptor: Descriptor): string {
  return canonicalHash(descriptor);
}
