import { LocalDecider } from '@tollgate/policy';
import type { PolicyBundle } from '@tollgate/policy';
import { watchBucket } from '@tollgate/kit';
import type { BucketWatch, KV, Logger } from '@tollgate/kit';

/** Bundles kept per tenant until its next decision loads them. */
const PENDING_PER_TENANT = 4;

/**
 * One `LocalDecider` per tenant, loaded from the `tollgate_policy_bundles` KV bucket exactly as
 * executors and the synthesizer load it, so the service's Decide, Explain and GetPermissionSet
 * answer what every other component decides. A tenant without a bundle gets an empty decider
 * (which denies everything with POLICY_UNAVAILABLE); a deleted or corrupt bundle leaves the
 * tenant denying everything too. Bundles are loaded lazily, on a tenant's next decision: the
 * service publishes bundles for every tenant but preparses only those it is asked about.
 */
export class TenantDeciders {
  readonly #deciders = new Map<string, LocalDecider>();
  /** Bundles received and not yet loaded, per tenant, oldest first; `undefined` = deleted. */
  readonly #pending = new Map<string, (Uint8Array | PolicyBundle | undefined)[]>();
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
    deciders.#watch = await watchBucket(
      kv,
      (tenant, value) => deciders.#receive(tenant, value),
      logger,
    );
    await deciders.#watch.ready;
    return deciders;
  }

  /** The tenant's decider with every bundle received loaded (empty, denying everything, when none). */
  decider(tenant: string): LocalDecider {
    let decider = this.#deciders.get(tenant);
    if (decider === undefined) {
      decider = this.#fresh();
      this.#deciders.set(tenant, decider);
    }
    const pending = this.#pending.get(tenant);
    if (pending === undefined) return decider;
    this.#pending.delete(tenant);
    for (const input of pending) {
      if (input === undefined) {
        decider = this.#fresh();
        this.#deciders.set(tenant, decider);
        continue;
      }
      const result = decider.load(input);
      if (!result.ok && result.kept)
        this.#logger.debug(
          { tenant, reason: result.reason },
          'policy bundle not loaded; kept current',
        );
      else if (!result.ok)
        this.#logger.error(
          { tenant, reason: result.reason },
          'policy bundle unusable; denying all',
        );
    }
    return decider;
  }

  /** A bundle this process just published, ahead of its KV echo (loading the echo is then a no-op). */
  offer(bundle: PolicyBundle): void {
    this.#receive(bundle.tenant, bundle);
  }

  stop(): void {
    this.#watch?.stop();
  }

  #fresh(): LocalDecider {
    return new LocalDecider({ clock: this.#clock });
  }

  #receive(tenant: string, input: Uint8Array | PolicyBundle | undefined): void {
    const pending = this.#pending.get(tenant) ?? [];
    // A deletion makes everything before it moot. Otherwise the last few arrivals are kept (an
    // offer may arrive after a newer echo; loading refuses the older one), not every version.
    this.#pending.set(
      tenant,
      input === undefined ? [undefined] : [...pending, input].slice(-PENDING_PER_TENANT),
    );
  }
}
