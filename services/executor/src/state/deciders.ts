import { parsePolicyBundleKey, policyBundleLookup, watchBucket } from '@tollgate/kit';
import type { BucketWatch, KV, Logger } from '@tollgate/kit';
import { LocalDecider } from '@tollgate/policy';
import type { DeciderOptions } from '@tollgate/policy';

/**
 * One local decider per bundle key of `tollgate_policy_bundles` (`<tenant>.<environment>`, and
 * `<tenant>` for the tenant's bundle without resources), hot-reloaded on every change — compiled
 * when the key is first asked for, so a bucket of many tenants costs nothing at startup. A call
 * is decided by its environment's bundle, or by the tenant's bundle without resources when the
 * environment has none. A tenant without a bundle has no decider, and a damaged bundle leaves
 * its decider denying everything: either way calls fail closed.
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

  /** Applies one KV entry (`value` undefined: the bundle under `key` was removed). */
  apply(key: string, value: Uint8Array | undefined): void {
    if (value === undefined) {
      const existed = this.#deciders.delete(key) || this.#pending.delete(key);
      if (existed) this.#logger.warn({ key }, 'policy bundle removed');
      return;
    }
    if (!this.#deciders.has(key)) {
      this.#pending.set(key, value);
      return;
    }
    this.#load(key, value);
  }

  #load(key: string, value: Uint8Array): void {
    let decider = this.#deciders.get(key);
    if (decider === undefined) {
      decider = new LocalDecider(this.#options);
      this.#deciders.set(key, decider);
    }
    const loaded = decider.load(value);
    if (loaded.ok) {
      this.#logger.info({ key, version: loaded.version }, 'policy bundle loaded');
    } else if (loaded.kept) {
      this.#logger.warn(
        { key, reason: loaded.reason },
        'policy bundle refused; keeping the loaded one',
      );
    } else {
      this.#logger.error(
        { key, reason: loaded.reason },
        'policy bundle unusable; calls it decides are denied',
      );
    }
    const status = decider.status();
    const tenant = parsePolicyBundleKey(key)?.tenant;
    if (status.state === 'ready' && status.tenant !== tenant) {
      this.#deciders.delete(key);
      this.#logger.error(
        { key, bundleTenant: status.tenant },
        'policy bundle stored under another tenant; ignored',
      );
    }
  }

  /** The decider of calls of `tenant` in `environment`; undefined when the tenant has no bundle. */
  forCall(tenant: string, environment: string): LocalDecider | undefined {
    for (const key of policyBundleLookup(tenant, environment)) {
      const pending = this.#pending.get(key);
      if (pending !== undefined) {
        this.#pending.delete(key);
        this.#load(key, pending);
      }
      const decider = this.#deciders.get(key);
      if (decider !== undefined) return decider;
    }
    return undefined;
  }

  stop(): void {
    this.#watch?.stop();
  }
}
