import type { Admitted } from './request.js';
import type { PolicyDecision } from './types.js';

/**
 * Decisions remembered per loaded bundle, keyed by everything Cedar sees for a request and
 * nothing it ignores (a set that never mentions the caller IP does not key on it), so a hit is
 * exactly the decision Cedar would make. Oldest entries go first when full.
 */
export class DecisionCache {
  private readonly entries = new Map<string, PolicyDecision>();

  constructor(private readonly capacity: number) {}

  key({ request, loaded, set }: Admitted): string | undefined {
    if (this.capacity <= 0) return undefined;
    const { reads } = set;
    return [
      request.agent,
      request.action,
      request.resource,
      request.environment,
      reads.user ? (request.user ?? '') : '',
      reads.sourceIp ? (request.sourceIp ?? '') : '',
      reads.limit ? (request.limit ?? '') : '',
      reads.clock ? Object.values(loaded.clock.read(request.now)).join(',') : '',
    ].join('\u0000');
  }

  get(key: string | undefined): PolicyDecision | undefined {
    return key === undefined ? undefined : this.entries.get(key);
  }

  set(key: string | undefined, decision: PolicyDecision): void {
    if (key === undefined) return;
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, decision);
  }
}
