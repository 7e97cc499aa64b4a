import { Kvm } from '@nats-io/kv';
import type { KV, KvEntry, KvOptions } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../log/logger.js';
import { storageReplicas } from './replicas.js';

/** Opens a KV bucket, creating it when missing (idempotent). */
export async function openBucket(
  nc: NatsConnection,
  name: string,
  options: Partial<KvOptions> = {},
): Promise<KV> {
  return new Kvm(nc).create(name, { replicas: storageReplicas(), ...options });
}

export interface BucketWatch {
  /** Resolves once the initial values have been delivered. */
  readonly ready: Promise<void>;
  stop(): void;
}

/**
 * Watches a bucket for hot reload: `onChange` sees every current value first, then each update
 * and deletion (`value` undefined) as it happens. Errors thrown by `onChange` are logged and
 * do not stop the watch.
 */
export async function watchBucket(
  kv: KV,
  onChange: (key: string, value: Uint8Array | undefined, entry: KvEntry) => void,
  logger: Logger,
  key = '>',
): Promise<BucketWatch> {
  const iter = await kv.watch({ key });
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let initialPending = true;
  void (async () => {
    for await (const entry of iter) {
      try {
        const deleted = entry.operation === 'DEL' || entry.operation === 'PURGE';
        onChange(entry.key, deleted ? undefined : entry.value, entry);
      } catch (err) {
        logger.error(
          { err: { message: (err as Error).message }, key: entry.key },
          'bucket watcher failed on an entry',
        );
      }
      if (initialPending && entry.delta === 0) {
        initialPending = false;
        markReady();
      }
    }
  })();
  // An empty bucket delivers nothing initially.
  const status = await kv.status();
  if (status.values === 0 && initialPending) {
    initialPending = false;
    markReady();
  }
  return { ready, stop: () => iter.stop() };
}

export type { KV, KvEntry };
