/**
 * Ranking preferences: resources a principal queries often rank higher for the same relevance.
 * They come from the memory service; a failure there never blocks or fails a listing.
 */
import { toJson } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import type { RpcClient } from '@tollgate/contracts';
import { PreferenceStatus } from '@tollgate/contracts/memory/v1';
import type { MemoryService, Preference } from '@tollgate/contracts/memory/v1';
import type { Principal } from '@tollgate/core';
import type { Logger } from '@tollgate/kit';

/** Who the listing is for, and the token they presented (to ask the memory service as them). */
export interface PreferenceRequest {
  principal: Principal;
  /** Absent when the caller acts for another principal: their preferences are not ours to read. */
  token?: string;
  sessionId: string;
  task: string;
}

/**
 * Where ranking boosts come from: resource name → multiplier (1 neutral, above 1 favoured).
 * Implementations must not throw; the synthesizer treats a failure as no preferences anyway.
 */
export interface PreferenceSource {
  boosts(request: PreferenceRequest): Promise<Record<string, number>>;
}

/** Ranks on relevance alone. */
export const noPreferences: PreferenceSource = {
  boosts: () => Promise.resolve({}),
};

/** The multiplier an active `frequent_resource` preference gives its resource. */
export const FREQUENT_RESOURCE_BOOST = 1.5;
const RESOURCE_NAME = /^[a-z][a-z0-9_]{2,62}$/;
const FREQUENT_PREFIX = 'frequent_resource:';

/** Boosts from preferences: active `frequent_resource` ones favour the resource they name. */
export function boostsFromPreferences(preferences: readonly Preference[]): Record<string, number> {
  const boosts: Record<string, number> = {};
  for (const preference of preferences) {
    if (preference.status !== PreferenceStatus.ACTIVE) continue;
    if (preference.kind !== 'frequent_resource') continue;
    const value =
      preference.value === undefined ? undefined : toJson(ValueSchema, preference.value);
    const name =
      typeof value === 'string'
        ? value
        : preference.key.startsWith(FREQUENT_PREFIX)
          ? preference.key.slice(FREQUENT_PREFIX.length)
          : '';
    if (RESOURCE_NAME.test(name)) boosts[name] = FREQUENT_RESOURCE_BOOST;
  }
  return boosts;
}

export interface MemoryPreferencesOptions {
  client: RpcClient<typeof MemoryService>;
  logger: Logger;
  /** Longest wait for the memory service per listing (ms). */
  timeoutMs: number;
  /** How long a principal's boosts are reused (ms); failures are remembered for at most 5 s. */
  ttlMs: number;
  clock?: () => number;
}

const FAILURE_TTL_MS = 5_000;
const MAX_REMEMBERED = 10_000;

/** Preferences read from the memory service (`ListPreferences`, as the principal). */
export class MemoryPreferences implements PreferenceSource {
  readonly #options: MemoryPreferencesOptions;
  readonly #clock: () => number;
  readonly #remembered = new Map<string, { boosts: Record<string, number>; until: number }>();

  constructor(options: MemoryPreferencesOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
  }

  async boosts(request: PreferenceRequest): Promise<Record<string, number>> {
    const { principal, token } = request;
    if (token === undefined) return {};
    const key = [
      principal.tenant,
      principal.environment,
      principal.agent,
      principal.user ?? '',
    ].join('\u0000');
    const now = this.#clock();
    const remembered = this.#remembered.get(key);
    if (remembered !== undefined && remembered.until > now) return remembered.boosts;
    let boosts: Record<string, number> = {};
    let ttl = this.#options.ttlMs;
    try {
      const response = await this.#options.client.listPreferences(
        { status: PreferenceStatus.ACTIVE, pageSize: 100 },
        { deadlineMs: this.#options.timeoutMs, metadata: { authorization: `Bearer ${token}` } },
      );
      boosts = boostsFromPreferences(response.preferences);
    } catch (err) {
      ttl = Math.min(ttl, FAILURE_TTL_MS);
      this.#options.logger.warn(
        {
          tenant: principal.tenant,
          agent: principal.agent,
          err: { message: (err as Error).message },
        },
        'preferences unavailable; ranking without them',
      );
    }
    if (this.#remembered.size >= MAX_REMEMBERED) this.#remembered.clear();
    this.#remembered.set(key, { boosts, until: now + ttl });
    return boosts;
  }
}
