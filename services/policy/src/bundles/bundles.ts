import type { Logger } from '@tollgate/kit';
import type { DeclarationChange } from '../events.js';
import type { BundlePublisher, PublishedBundle } from './publisher.js';
import { RebuildScheduler } from './scheduler.js';

export interface BundlesDeps {
  publisher: BundlePublisher;
  /** Every tenant that has declarations, resources or a bundle. */
  tenants: () => Promise<string[]>;
  logger: Logger;
  /** Coalescing window of rebuilds per tenant, ms. */
  windowMs: number;
  /** Pause between reconcile passes, ms (0 = only at start and when asked). */
  reconcileIntervalMs: number;
}

/**
 * Keeps every tenant's bundle in KV current: rebuilds after each stored change (coalesced per
 * tenant), after resource changes, and in reconcile passes over all tenants (at start-up and
 * periodically) that repair anything a failed publication left behind.
 */
export class Bundles {
  readonly #deps: BundlesDeps;
  readonly #scheduler: RebuildScheduler<DeclarationChange, PublishedBundle>;
  #timer: NodeJS.Timeout | undefined;
  #reconciling: Promise<void> | undefined;
  #stopped = false;

  constructor(deps: BundlesDeps) {
    this.#deps = deps;
    this.#scheduler = new RebuildScheduler({
      run: (tenant, changes) => deps.publisher.publish(tenant, changes),
      windowMs: deps.windowMs,
    });
  }

  /**
   * Rebuilds after a stored change and resolves with the bundle that includes it; undefined
   * when publishing failed (logged; the next reconcile pass publishes it).
   */
  async afterChange(
    tenant: string,
    change?: DeclarationChange,
  ): Promise<PublishedBundle | undefined> {
    try {
      return await this.#scheduler.request(tenant, change);
    } catch (err) {
      this.#deps.logger.warn(
        { tenant, err: { name: (err as Error).name, message: (err as Error).message } },
        'policy bundle not published; deferred to the reconciler',
      );
      return undefined;
    }
  }

  /** Rebuilds in the background (resource changes). */
  rebuild(tenant: string): void {
    void this.afterChange(tenant);
  }

  /** Rebuilds every tenant's bundle now; one pass at a time. */
  reconcile(): Promise<void> {
    this.#reconciling ??= this.#reconcileAll().finally(() => (this.#reconciling = undefined));
    return this.#reconciling;
  }

  /**
   * Starts a first reconcile pass in the background (the service serves meanwhile: deciders
   * read what KV holds, and changes queue per tenant behind it), then one every
   * `reconcileIntervalMs`. Returns at once; `reconcile()` waits for a pass.
   */
  start(): void {
    void this.reconcile();
    if (this.#deps.reconcileIntervalMs > 0 && !this.#stopped) {
      this.#timer = setInterval(() => void this.reconcile(), this.#deps.reconcileIntervalMs);
      this.#timer.unref();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#reconciling;
    await this.#scheduler.stop();
  }

  async #reconcileAll(): Promise<void> {
    let tenants: string[];
    try {
      tenants = await this.#deps.tenants();
    } catch (err) {
      this.#deps.logger.warn({ err: { message: (err as Error).message } }, 'reconcile: no tenants');
      return;
    }
    for (const tenant of tenants) {
      if (this.#stopped) return;
      await this.afterChange(tenant);
    }
    this.#deps.logger.info({ tenants: tenants.length }, 'policy bundles reconciled');
  }
}
