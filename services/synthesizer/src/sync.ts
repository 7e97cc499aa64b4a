/**
 * Keeps a synthesizer equal to the KV projections it acts on: the registry's resources and the
 * policy service's bundles, watched for hot reload. `resource.changed` / `policy.changed` events
 * are a second path: one that announces something the synthesizer does not hold yet makes it
 * read the entry at once. Entries are applied in revision order, whichever path brings them.
 * `tool.withdrawn` (an executor found a pinned definition changed) stops offering that
 * operation until a newer version of the resource; the withdrawals bucket, where executors
 * record them too, brings the ones made before this synthesizer started.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  EventTypes,
  buckets,
  decodeEnvelope,
  openBucket,
  parseWithdrawalKey,
  policyBundleKey,
  resourceKey,
  subjects,
  watchBucket,
} from '@tollgate/kit';
import type { BucketWatch, KV, KvEntry, Logger } from '@tollgate/kit';
import type { Synthesizer } from './synthesizer.js';

export interface SyncOptions {
  nc: NatsConnection;
  synthesizer: Synthesizer;
  logger: Logger;
  /** Bucket names; default the ones the registry and policy service write. */
  resourcesBucket?: string;
  bundlesBucket?: string;
  withdrawalsBucket?: string;
  /** Watch the buckets (default true); without, only events bring changes. */
  watch?: boolean;
}

export interface Sync {
  /** Resolves once every entry present at start has been applied. */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

/** Applies one bucket's entries in revision order; an older revision never replaces a newer. */
class BucketFeed {
  readonly #revisions = new Map<string, number>();

  constructor(
    readonly kv: KV,
    private readonly apply: (key: string, value: Uint8Array | undefined) => void,
  ) {}

  offer(key: string, value: Uint8Array | undefined, entry: KvEntry): void {
    if ((this.#revisions.get(key) ?? 0) >= entry.revision) return;
    this.#revisions.set(key, entry.revision);
    this.apply(key, value);
  }

  /** Reads the key's current entry and applies it (a purged key is left to the watch). */
  async refresh(key: string): Promise<void> {
    const entry = await this.kv.get(key);
    if (entry === null) return;
    const deleted = entry.operation === 'DEL' || entry.operation === 'PURGE';
    this.offer(key, deleted ? undefined : entry.value, entry);
  }
}

export async function startSync(options: SyncOptions): Promise<Sync> {
  const { nc, synthesizer, logger } = options;
  const resources = new BucketFeed(
    await openBucket(nc, options.resourcesBucket ?? buckets.resources),
    (key, value) => synthesizer.applyResource(key, value),
  );
  const bundles = new BucketFeed(
    await openBucket(nc, options.bundlesBucket ?? buckets.policyBundles),
    (key, value) => synthesizer.applyBundle(key, value),
  );
  const withdrawals = new BucketFeed(
    await openBucket(nc, options.withdrawalsBucket ?? buckets.withdrawals),
    (key, value) => applyWithdrawal(synthesizer, logger, key, value),
  );
  const watches: BucketWatch[] = [];
  if (options.watch !== false) {
    for (const feed of [resources, bundles, withdrawals]) {
      watches.push(
        await watchBucket(feed.kv, (key, value, entry) => feed.offer(key, value, entry), logger),
      );
    }
  }

  const refresh = (feed: BucketFeed, key: string): void => {
    feed
      .refresh(key)
      .catch((err: unknown) =>
        logger.warn(
          { key, err: { message: (err as Error).message } },
          'could not re-read a changed entry',
        ),
      );
  };
  // A publication changes the tenant's bundle without resources and maybe each environment's.
  const refreshBundles = (tenant: string): void => {
    refresh(bundles, policyBundleKey(tenant));
    void (async () => {
      for await (const key of await bundles.kv.keys(`${policyBundleKey(tenant)}.*`))
        refresh(bundles, key);
    })().catch((err: unknown) =>
      logger.warn(
        { tenant, err: { message: (err as Error).message } },
        'could not list the bundles of a tenant',
      ),
    );
  };
  const onEvent = (data: Uint8Array): void => {
    const event = decodeEnvelope(data);
    const payload = event.payload;
    if (payload.case === 'resourceChanged') {
      const { tenant, environment, name, version } = payload.value;
      const key = resourceKey(tenant, environment, name);
      if (synthesizer.catalog.byKey(key)?.version !== version) refresh(resources, key);
    } else if (payload.case === 'toolWithdrawn') {
      const { tenant, environment, resource, resourceVersion, operation } = payload.value;
      synthesizer.withdraw(resourceKey(tenant, environment, resource), resourceVersion, operation);
    } else if (payload.case === 'policyChanged') {
      const { tenant, bundleHash } = payload.value;
      if (tenant !== '' && synthesizer.bundles.hash(tenant) !== bundleHash) refreshBundles(tenant);
    }
  };
  const followed = [EventTypes.resourceChanged, EventTypes.policyChanged, EventTypes.toolWithdrawn];
  const subscriptions: Subscription[] = followed.map((type) =>
    nc.subscribe(subjects.eventsOf(type), {
      callback: (err, msg) => {
        if (err !== null) return;
        try {
          onEvent(msg.data);
        } catch (cause) {
          logger.warn({ type, err: { message: (cause as Error).message } }, 'change event ignored');
        }
      },
    }),
  );

  return {
    ready: Promise.all(watches.map((w) => w.ready)).then(() => undefined),
    async stop() {
      for (const watch of watches) watch.stop();
      for (const sub of subscriptions) sub.unsubscribe();
      await Promise.resolve();
    },
  };
}

/**
 * A withdrawals-bucket entry, as an executor recorded it. A deleted entry changes nothing: a
 * withdrawal ends with a newer resource version, not with its record.
 */
function applyWithdrawal(
  synthesizer: Synthesizer,
  logger: Logger,
  key: string,
  value: Uint8Array | undefined,
): void {
  if (value === undefined) return;
  const parsed = parseWithdrawalKey(key);
  let version: unknown;
  try {
    version = (JSON.parse(new TextDecoder().decode(value)) as { resourceVersion?: unknown })
      .resourceVersion;
  } catch {
    version = undefined;
  }
  // A record names the version it withdrew (≥ 1): one that named none would withdraw the
  // operation from every later version as well, for as long as the record stays.
  if (
    parsed === undefined ||
    typeof version !== 'number' ||
    !Number.isSafeInteger(version) ||
    version < 1
  ) {
    logger.warn({ key }, 'withdrawal record not understood; ignored');
    return;
  }
  synthesizer.withdraw(parsed.resource, version, parsed.operation);
}
