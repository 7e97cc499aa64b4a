/**
 * Assembles a running synthesizer from its dependencies: the catalog and bundles synced from
 * KV, saved queries and preferred fields followed in the memory bucket, listings recorded on
 * JetStream, and both front doors. `main.ts` and the tests use this.
 */
import type { Server } from '@grpc/grpc-js';
import type { NatsConnection } from '@nats-io/transport-node';
import type { CredentialNamespaces, TokenVerifier } from '@tollgate/core';
import {
  EventPublisher,
  MemoryProjection,
  buckets,
  ensureEventStream,
  openBucket,
} from '@tollgate/kit';
import type { Logger } from '@tollgate/kit';
import { registerSynthesizerGrpc, serveSynthesizerBus } from './api.js';
import { BusListingRecorder } from './listings.js';
import type { PreferenceSource } from './preferences.js';
import { startSync } from './sync.js';
import type { Sync, SyncOptions } from './sync.js';
import { Synthesizer } from './synthesizer.js';

export interface StartOptions {
  nc: NatsConnection;
  logger: Logger;
  verifier: TokenVerifier;
  /** Registers SynthesizerService here when given. */
  grpcServer?: Server;
  preferences?: PreferenceSource;
  toolCacheSize?: number;
  /** NATS queue group of the agent-facing subjects (default `synthesizer`). */
  queue?: string;
  resourcesBucket?: SyncOptions['resourcesBucket'];
  bundlesBucket?: SyncOptions['bundlesBucket'];
  /** The memory service's bucket (default `tollgate_memory`; created when missing). */
  memoryBucket?: string;
  /** Resources whose credential reference lies outside these are not offered (default: all are). */
  credentialNamespaces?: CredentialNamespaces;
  watch?: SyncOptions['watch'];
}

export interface RunningSynthesizer {
  synthesizer: Synthesizer;
  /** Stops serving agents and syncing (the gRPC server is its owner's to stop). */
  stop(): Promise<void>;
}

/**
 * Starts syncing, waits until every current resource, bundle and memory item is loaded, then
 * serves.
 */
export async function startSynthesizer(options: StartOptions): Promise<RunningSynthesizer> {
  const { nc, logger, verifier } = options;
  await ensureEventStream(nc);
  const memory = await MemoryProjection.follow(
    await openBucket(nc, options.memoryBucket ?? buckets.memory),
    logger,
  );
  const synthesizer = new Synthesizer({
    logger,
    memory,
    listings: new BusListingRecorder(new EventPublisher(nc)),
    ...(options.preferences !== undefined ? { preferences: options.preferences } : {}),
    ...(options.toolCacheSize !== undefined ? { toolCacheSize: options.toolCacheSize } : {}),
    ...(options.credentialNamespaces !== undefined
      ? { credentialNamespaces: options.credentialNamespaces }
      : {}),
  });
  let sync: Sync;
  try {
    sync = await startSync({
      nc,
      synthesizer,
      logger,
      ...(options.resourcesBucket !== undefined
        ? { resourcesBucket: options.resourcesBucket }
        : {}),
      ...(options.bundlesBucket !== undefined ? { bundlesBucket: options.bundlesBucket } : {}),
      ...(options.watch !== undefined ? { watch: options.watch } : {}),
    });
    await sync.ready;
  } catch (err) {
    memory.stop();
    throw err;
  }
  logger.info({ resources: synthesizer.catalog.size }, 'catalog loaded');
  if (options.grpcServer !== undefined) {
    registerSynthesizerGrpc(options.grpcServer, { synthesizer, verifier, logger });
  }
  const subscriptions = serveSynthesizerBus(nc, {
    synthesizer,
    verifier,
    logger,
    queue: options.queue ?? 'synthesizer',
  });
  return {
    synthesizer,
    async stop() {
      for (const sub of subscriptions) sub.unsubscribe();
      await sync.stop();
      memory.stop();
    },
  };
}
