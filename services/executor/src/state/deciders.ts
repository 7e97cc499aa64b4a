import { watchBucket } from '@tollgate/kit';
import type { BucketWatch, KV, Logger } from '@tollgate/kit';
import { LocalDecider } from '@tollgate/policy';
import type { DeciderOptions } from '@tollgate/policy';

/**
 * One local decider per tenant, loaded from the compiled bundles in `tollgate_policy_bundles`
 * (key `<tenant>`) and hot-reloaded on every change — compiled when the tenant is first asked
 * for, so a bucket of many tenants costs nothing at startup. A tenant without a bundle has no decider,
 * and a damaged bundle leaves its decider denying everything: either way calls fail closed.
 */
export class PolicyDeciders {
  readonly #deciders = new Map<string, LocalDecider>();
  /** Bundles of tenants not asked for yet: compiled on first use, so startup loads nothing. */
  readonly #pending = new Map<string, Uint8Array>();
  readonly #logger: Logger;
  readonly #options: DeciderOptions;
  #watch: BucketWatch | undefined;

  constructor(logger: Logger, options: DeciderOptions = {}) {
    this.#logger = logger;
    this.#options = options;
  }

  /** Deciders following `kv`; resolves once the current bundles are loaded. */
  static async follow(kv: KV, logger: Logger, options?: DeciderOptions): Promise<PolicyDeciders> {
    const deciders = new PolicyDeciders(logger, options);
    deciders.#watch = await watchBucket(kv, (key, value) => deciders.apply(key, value), logger);
    await deciders.#watch.ready;
    return deciders;
  }

  /** Applies one KV entry (`value` undefined: the tenant's bundle was removed). */
  apply(tenant: string, value: Uint8Array | undefined): void {
    if (value === undefined) {
      this.#deciders.delete(tenant);
      this.#pending.delete(tenant);
      this.#logger.warn({ tenant }, 'policy bundle removed; calls of this tenant are denied');
      return;
    }
    if (!this.#deciders.has(tenant)) {
      this.#pending.set(tenant, value);
      return;
    }
    this.#load(tenant, value);
  }

  #load(tenant: string, value: Uint8Array): void {
    let decider = this.#deciders.get(tenant);
    if (decider === undefined) {
      decider = new LocalDecider(this.#options);
      this.#deciders.set(tenant, decider);
    }
    const loaded = decider.load(value);
    if (loaded.ok) {
      this.#logger.info({ tenant, version: loaded.version }, 'policy bundle loaded');
    } else if (loaded.kept) {
      this.#logger.warn(
        { tenant, reason: loaded.reason },
        'policy bundle refused; keeping the loaded one',
      );
    } else {
      this.#logger.error(
        { tenant, reason: loaded.reason },
        'policy bundle unusable; calls of this tenant are denied',
      );
    }
    const status = decider.status();
    if (status.state === 'ready' && status.tenant !== tenant) {
      this.#deciders.delete(tenant);
      this.#logger.error(
        { tenant, bundleTenant: status.tenant },
        'policy bundle stored under another tenant; ignored',
      );
    }
  }

  forTenant(tenant: string): LocalDecider | undefined {
    const pending = this.#pending.get(tenant);
    if (pending !== undefined) {
      this.#pending.delete(tenant);
      this.#load(tenant, pending);
    }
    return this.#deciders.get(tenant);
  }

  stop(): void {
    this.#watch?.stop();
  }
}
