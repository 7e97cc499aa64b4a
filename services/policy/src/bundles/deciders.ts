import { LocalDecider } from '@tollgate/policy';
import type { PolicyBundle } from '@tollgate/policy';
import {
  parsePolicyBundleKey,
  policyBundleKey,
  policyBundleLookup,
  watchBucket,
} from '@tollgate/kit';
import type { BucketWatch, KV, Logger } from '@tollgate/kit';

/** Bundles kept per key until its next decision loads them. */
const PENDING_PER_KEY = 4;

/**
 * One `LocalDecider` per bundle key (`<tenant>` and `<tenant>.<environment>`), loaded from the
 * `tollgate_policy_bundles` KV bucket exactly as executors and the synthesizer load it, so the
 * service's Decide, Explain and GetPermissionSet answer what every other component decides. A
 * decision in an environment reads that environment's bundle, or the tenant's bundle without
 * resources when the environment has none. A tenant without a bundle gets an empty decider
 * (which denies everything with POLICY_UNAVAILABLE); a corrupt bundle leaves its key denying
 * everything too. Bundles are loaded lazily, on a key's next decision: the service publishes
 * bundles for every tenant but preparses only those it is asked about.
 */
export class TenantDeciders {
  readonly #deciders = new Map<string, LocalDecider>();
  /** Bundles received and not yet loaded, per key, oldest first; `undefined` = deleted. */
  readonly #pending = new Map<string, (Uint8Array | PolicyBundle | undefined)[]>();
  /** Keys whose latest entry is a bundle (not a deletion). */
  readonly #present = new Set<string>();
  /** The environments of each tenant that have a bundle. */
  readonly #environments = new Map<string, Set<string>>();
  readonly #logger: Logger;
  readonly #clock: () => number;
  #watch: BucketWatch | undefined;

  private constructor(logger: Logger, clock: () => number) {
    this.#logger = logger;
    this.#clock = clock;
  }

  /** Starts watching `kv`; resolves once the bundles already in it are loaded. */
  static async start(
    kv: KV,
    logger: Logger,
    clock: () => number = Date.now,
  ): Promise<TenantDeciders> {
    const deciders = new TenantDeciders(logger, clock);
    deciders.#watch = await watchBucket(kv, (key, value) => deciders.#receive(key, value), logger);
    await deciders.#watch.ready;
    return deciders;
  }

  /**
   * The decider for calls of `tenant` in `environment`, with every bundle received loaded
   * (empty, denying everything, when the tenant has none).
   */
  decider(tenant: string, environment: string): LocalDecider {
    const keys = policyBundleLookup(tenant, environment);
    return this.#decider(keys.find((key) => this.#present.has(key)) ?? policyBundleKey(tenant));
  }

  /** The environments `tenant` has a bundle of, as the watch (and this process's offers) saw. */
  environmentsOf(tenant: string): string[] {
    return [...(this.#environments.get(tenant) ?? [])];
  }

  /** A bundle this process just published, ahead of its KV echo (loading the echo is then a no-op). */
  offer(bundle: PolicyBundle, environment?: string): void {
    this.#receive(policyBundleKey(bundle.tenant, environment), bundle);
  }

  stop(): void {
    this.#watch?.stop();
  }

  #decider(key: string): LocalDecider {
    let decider = this.#deciders.get(key);
    if (decider === undefined) {
      decider = this.#fresh();
      this.#deciders.set(key, decider);
    }
    const pending = this.#pending.get(key);
    if (pending === undefined) return decider;
    this.#pending.delete(key);
    for (const input of pending) {
      if (input === undefined) {
        decider = this.#fresh();
        this.#deciders.set(key, decider);
        continue;
      }
      const result = decider.load(input);
      if (!result.ok && result.kept)
        this.#logger.debug(
          { key, reason: result.reason },
          'policy bundle not loaded; kept current',
        );
      else if (!result.ok)
        this.#logger.error({ key, reason: result.reason }, 'policy bundle unusable; denying all');
    }
    return decider;
  }

  #fresh(): LocalDecider {
    return new LocalDecider({ clock: this.#clock });
  }

  #receive(key: string, input: Uint8Array | PolicyBundle | undefined): void {
    const pending = this.#pending.get(key) ?? [];
    if (input === undefined) this.#present.delete(key);
    else this.#present.add(key);
    const { tenant, environment } = parsePolicyBundleKey(key) ?? {};
    if (tenant !== undefined && environment !== undefined) {
      const environments = this.#environments.get(tenant) ?? new Set<string>();
      if (input === undefined) environments.delete(environment);
      else environments.add(environment);
      this.#environments.set(tenant, environments);
    }
    // A deletion makes everything before it moot. Otherwise the last few arrivals are kept (an
    // offer may arrive after a newer echo; loading refuses the older one), not every version.
    this.#pending.set(
      key,
      input === undefined ? [undefined] : [...pending, input].slice(-PENDING_PER_KEY),
    );
  }
}
