import { resourceKey, watchBucket } from '@tollgate/kit';
import type { BucketWatch, KV, Logger } from '@tollgate/kit';
import type { Catalog } from './catalog.js';
import { recordOf, stateOf } from './projection-value.js';
import { desiredState, sameState } from './projector.js';
import type { ProjectedState, Projector } from './projector.js';
import { resourceId, versionId } from './scope.js';
import type { ResourceRef } from './scope.js';
import type { ResourceStore, VersionKey } from './store.js';

/** Mirror value of an entry that is not a PublishedResource: never equal to a wanted state. */
const UNREADABLE: ProjectedState = { version: 0, hash: '' };

/** What one reconciliation pass found. */
export interface ReconcileReport {
  /** Resources in the store. */
  resources: number;
  /** KV entries rewritten or removed to match the store. */
  repaired: number;
  /** Resources whose projection or announcement failed (retried next pass). */
  failed: number;
  /** Versions whose `resource.changed` had never been stored, announced by this pass. */
  announced: number;
}

export interface ReconcilerOptions {
  store: ResourceStore;
  catalog: Catalog;
  projector: Projector;
  kv: KV;
  logger: Logger;
  /** Pause between passes (0 = only when `runOnce` is called). */
  intervalMs: number;
  /** Projections run at once during a pass. */
  concurrency?: number;
}

/**
 * Keeps the KV projection and the catalog converged on the store. It watches the bucket, which
 * mirrors what every registry instance projected, and the catalog takes each new version from
 * it (so other instances' changes reach this instance's List). Each pass brings the catalog up
 * to the store's newest versions, then re-projects every resource whose KV entry is missing,
 * stale, or should be gone, announcing the versions it had to project. Passes run at start-up and every
 * `intervalMs`, so a projection lost to a NATS outage or a crash after the store write
 * converges; a version whose projection landed but whose `resource.changed` publish failed is
 * announced by the next pass (the store records each version's announcement).
 */
export class Reconciler {
  readonly #o: ReconcilerOptions;
  /** KV key → what the bucket holds (live entries only). */
  readonly #mirror = new Map<string, ProjectedState>();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #refreshing = new Set<string>();
  /** Changes seen before the catalog was loaded that need a read of the store. */
  readonly #deferred = new Set<ResourceRef>();
  /** Ids of current versions known to be announced (so a pass asks the store only about new ones). */
  #announced = new Set<string>();
  #watch: BucketWatch | undefined;
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<ReconcileReport> | undefined;
  #loaded = false;

  constructor(options: ReconcilerOptions) {
    this.#o = options;
  }

  /** Starts watching, loads the catalog (awaited) and repairs in the background. */
  async start(): Promise<void> {
    this.#watch = await watchBucket(
      this.#o.kv,
      (key, value) => this.#observe(key, value),
      this.#o.logger,
    );
    await this.#watch.ready;
    const newest = await this.#load();
    this.#background(this.#exclusive(() => this.#repair(newest)));
    if (this.#o.intervalMs > 0) {
      this.#timer = setInterval(() => this.#background(this.runOnce()), this.#o.intervalMs);
      this.#timer.unref();
    }
  }

  /** One pass: bring the catalog up to the store's newest versions and repair the projection. */
  runOnce(): Promise<ReconcileReport> {
    return this.#exclusive(async () => this.#repair(await this.#load()));
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#watch?.stop();
    await Promise.allSettled([...this.#inFlight]);
  }

  #exclusive(run: () => Promise<ReconcileReport>): Promise<ReconcileReport> {
    this.#pass ??= run().finally(() => (this.#pass = undefined));
    return this.#pass;
  }

  /**
   * The catalog already holds what the bucket showed; the store's newest version of every
   * resource (one pass over the versions' keys) says which it lacks or holds an older version
   * of (deleted resources, changes whose projection was lost), and those are read.
   */
  async #load(): Promise<Map<string, VersionKey>> {
    const newest = await this.#o.store.newestVersions();
    const behind = [...newest.values()].filter(
      (key) => (this.#o.catalog.get(resourceId(key))?.version ?? 0) < key.version,
    );
    for (const record of await this.#o.store.fetch(behind)) this.#o.catalog.put(record);
    this.#loaded = true;
    for (const ref of this.#deferred) this.#refresh(ref);
    this.#deferred.clear();
    return newest;
  }

  async #repair(newest: Map<string, VersionKey>): Promise<ReconcileReport> {
    const backed = new Set<string>();
    const stale: ResourceRef[] = [];
    for (const key of newest.values()) {
      const kvKey = resourceKey(key.tenant, key.environment, key.name);
      backed.add(kvKey);
      const held = this.#o.catalog.get(resourceId(key));
      if (!sameState(this.#mirror.get(kvKey), desiredState(held))) stale.push(key);
    }
    for (const kvKey of this.#mirror.keys()) {
      const ref = refOfKey(kvKey);
      if (!backed.has(kvKey) && ref !== undefined) stale.push(ref);
    }
    let repaired = 0;
    let failed = 0;
    await pool(stale, this.#o.concurrency ?? 8, async (ref) => {
      try {
        const known = this.#o.catalog.get(resourceId(ref));
        const { written, current } = await this.#o.projector.project(ref, known);
        if (!written) return;
        repaired += 1;
        if (current !== undefined) await this.#o.projector.announce(current);
      } catch (err) {
        failed += 1;
        this.#o.logger.error(
          { resource: resourceId(ref), err: { message: (err as Error).message } },
          'reconciler could not project a resource',
        );
      }
    });
    const announced = await this.#announceMissed(newest, (ref) => {
      failed += 1;
      this.#o.logger.error(
        { resource: resourceId(ref) },
        'reconciler could not announce a resource',
      );
    });
    if (repaired > 0 || failed > 0 || announced > 0) {
      this.#o.logger.warn(
        { repaired, failed, announced, resources: newest.size },
        'reconciler repaired the resource projection',
      );
    }
    return { resources: newest.size, repaired, failed, announced };
  }

  /**
   * Announces every current version whose announcement the store has no record of (its
   * publish failed after the KV write, or its instance died in between). Only the current
   * version matters: consumers read the resource from KV, the event says that it changed.
   */
  async #announceMissed(
    newest: Map<string, VersionKey>,
    onFailure: (ref: ResourceRef) => void,
  ): Promise<number> {
    const current = new Set([...newest.values()].map((key) => versionId(key, key.version)));
    this.#announced = new Set([...this.#announced].filter((id) => current.has(id)));
    const unknown = [...newest.values()].filter(
      (key) => !this.#announced.has(versionId(key, key.version)),
    );
    const missed = new Set(
      (await this.#o.store.unannounced(unknown)).map((key) => versionId(key, key.version)),
    );
    for (const key of unknown)
      if (!missed.has(versionId(key, key.version)))
        this.#announced.add(versionId(key, key.version));
    let announced = 0;
    const due = unknown.filter((key) => missed.has(versionId(key, key.version)));
    await pool(due, this.#o.concurrency ?? 8, async (key) => {
      const record = this.#o.catalog.get(resourceId(key));
      // A newer version arrived meanwhile: its own announcement covers the change.
      if (record === undefined || record.version !== key.version) return;
      try {
        await this.#o.projector.announce(record);
        this.#announced.add(versionId(key, key.version));
        announced += 1;
      } catch {
        onFailure(key);
      }
    });
    return announced;
  }

  /**
   * One bucket change: the mirror follows it, and the catalog takes the version from the value
   * (written by some registry instance); only deletions and values that are not ours cost a
   * read of the store.
   */
  #observe(key: string, value: Uint8Array | undefined): void {
    const state = value === undefined ? undefined : stateOf(value);
    if (value === undefined) this.#mirror.delete(key);
    else this.#mirror.set(key, state ?? UNREADABLE);
    const ref = refOfKey(key);
    if (ref === undefined) return;
    const record = value === undefined ? undefined : recordOf(value);
    if (record !== undefined) {
      this.#o.catalog.put(record);
      return;
    }
    const held = this.#o.catalog.get(resourceId(ref));
    if (value === undefined && held?.deleted === true) return;
    if (this.#loaded) this.#refresh(ref);
    else this.#deferred.add(ref);
  }

  /** Re-reads one resource's current version into the catalog. */
  #refresh(ref: ResourceRef): void {
    const id = resourceId(ref);
    if (this.#refreshing.has(id)) return;
    this.#refreshing.add(id);
    this.#background(
      this.#o.store
        .current(ref, this.#o.catalog.get(id))
        .then((current) => {
          if (current !== undefined) this.#o.catalog.put(current);
        })
        .finally(() => this.#refreshing.delete(id)),
    );
  }

  #background(work: Promise<unknown>): void {
    const tracked = work.catch((err: unknown) =>
      this.#o.logger.error({ err: { message: (err as Error).message } }, 'reconciler step failed'),
    );
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
  }
}

/** `<tenant>.<environment>.<name>` back to a reference (none of the parts contains a dot). */
function refOfKey(key: string): ResourceRef | undefined {
  const parts = key.split('.');
  if (parts.length !== 3) return undefined;
  const [tenant, environment, name] = parts as [string, string, string];
  return { tenant, environment, name };
}

async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length) await work(items[next++] as T);
  });
  await Promise.all(lanes);
}
