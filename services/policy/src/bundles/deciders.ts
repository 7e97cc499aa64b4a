import { LocalDecider } from '@tollgate/policy';
import type { PolicyBundle } from '@tollgate/policy';
import { watchBucket } from '@tollgate/kit';
import type { BucketWatch, KV, Logger } from '@tollgate/kit';

/**
 * One `LocalDecider` per tenant, loaded from the `tollgate_policy_bundles` KV bucket exactly as
 * executors and the synthesizer load it, so the service's Decide, Explain and GetPermissionSet
 * answer what every other component decides. A tenant without a bundle gets an empty decider
 * (which denies everything with POLICY_UNAVAILABLE); a deleted or corrupt bundle leaves the
 * tenant denying everything too.
 */
export class TenantDeciders {
  readonly #deciders = new Map<string, LocalDecider>();
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
      (tenant, value) => {
        if (value === undefined) deciders.#deciders.set(tenant, deciders.#fresh());
        else deciders.#load(tenant, value);
      },
      logger,
    );
    await deciders.#watch.ready;
    return deciders;
  }

  /** The tenant's decider (an empty one, denying everything, when it has no bundle yet). */
  decider(tenant: string): LocalDecider {
    let decider = this.#deciders.get(tenant);
    if (decider === undefined) {
      decider = this.#fresh();
      this.#deciders.set(tenant, decider);
    }
    return decider;
  }

  /** Loads a bundle this process just published, ahead of its KV echo (same as the echo: no-op). */
  offer(bundle: PolicyBundle): void {
    this.#load(bundle.tenant, bundle);
  }

  stop(): void {
    this.#watch?.stop();
  }

  #fresh(): LocalDecider {
    return new LocalDecider({ clock: this.#clock });
  }

  #load(tenant: string, input: Uint8Array | PolicyBundle): void {
    const result = this.decider(tenant).load(input);
    if (!result.ok && result.kept) {
      this.#logger.debug(
        { tenant, reason: result.reason },
        'policy bundle not loaded; kept current',
      );
    } else if (!result.ok) {
      this.#logger.error({ tenant, reason: result.reason }, 'policy bundle unusable; denying all');
    }
  }
}
