import type { NatsConnection } from '@nats-io/transport-node';
import type { Db } from 'mongodb';
import type {
  ConnectorRegistry,
  CredentialNamespaces,
  CredentialResolver,
  EgressRules,
} from '@tollgate/core';
import {
  EventPublisher,
  OperatorRoles,
  buckets,
  ensureEventStream,
  openBucket,
} from '@tollgate/kit';
import type { AddressLookup, KV, Logger } from '@tollgate/kit';
import { readBundleRoles } from '@tollgate/policy';
import { Catalog } from './catalog.js';
import { DraftStore } from './draft-store.js';
import { startDraftSweeper } from './draft-sweeper.js';
import type { DraftSweeper } from './draft-sweeper.js';
import { Drafts } from './drafts.js';
import { Projector, announceChanges } from './projector.js';
import { Reconciler } from './reconciler.js';
import { pinOnConfirm } from './pinning.js';
import { Registry } from './registry.js';
import { ResourceStore } from './store.js';

export interface RegistryServiceOptions {
  db: Db;
  nc: NatsConnection;
  logger: Logger;
  connectors: ConnectorRegistry;
  credentials: CredentialResolver;
  /** Which credential references each tenant's resources may name (checked before anything is stored or discovered). */
  credentialNamespaces: CredentialNamespaces;
  /** Which destinations each tenant's resources may connect to (checked before anything is stored or discovered). */
  egressRules: EgressRules;
  /** How endpoint host names are resolved for that check (default: the system's resolver). */
  resolveHost?: AddressLookup;
  draftTtlMs: number;
  /** How long past its expiry a draft is kept before it is deleted (default 24 h). */
  draftRetentionMs?: number;
  /** Pause between draft sweeps (default 0 = never on a timer). */
  draftSweepIntervalMs?: number;
  /** 0 = reconcile only at start-up and when asked. */
  reconcileIntervalMs: number;
  /** KV bucket of the projection (default `tollgate_resources`; tests use their own). */
  bucket?: string;
  /** KV bucket of the policy bundles the callers' roles are read from (default `tollgate_policy_bundles`). */
  bundlesBucket?: string;
  clock?: () => Date;
}

/** The registry's parts, wired and started. */
export interface RegistryParts {
  registry: Registry;
  drafts: Drafts;
  reconciler: Reconciler;
  draftSweeper: DraftSweeper;
  projector: Projector;
  store: ResourceStore;
  kv: KV;
  /** The callers' roles (the API checks them). */
  roles: OperatorRoles;
  stop(): Promise<void>;
}

/**
 * Builds the registry from its dependencies: indexes, the event stream and KV bucket, the
 * catalog loaded from the store, the reconciler and the draft sweeper running. Used by `main` and by tests.
 */
export async function startRegistry(options: RegistryServiceOptions): Promise<RegistryParts> {
  const { db, nc, logger } = options;
  const store = new ResourceStore(db);
  const draftStore = new DraftStore(db);
  await store.ensureIndexes();
  await draftStore.ensureIndexes();
  await ensureEventStream(nc);
  const kv = await openBucket(nc, options.bucket ?? buckets.resources);
  const roles = new OperatorRoles(
    await openBucket(nc, options.bundlesBucket ?? buckets.policyBundles),
    readBundleRoles,
  );
  const projector = new Projector({ kv, events: new EventPublisher(nc), store });
  const catalog = new Catalog();
  const clock = options.clock ?? (() => new Date());
  const registry = new Registry({
    kinds: options.connectors,
    pin: pinOnConfirm(options.connectors, options.credentials),
    store,
    catalog,
    changes: announceChanges(projector, logger),
    credentialNamespaces: options.credentialNamespaces,
    egressRules: options.egressRules,
    ...(options.resolveHost === undefined ? {} : { resolveHost: options.resolveHost }),
    clock,
  });
  const drafts = new Drafts({
    store: draftStore,
    registry,
    connectors: options.connectors,
    credentials: options.credentials,
    credentialNamespaces: options.credentialNamespaces,
    ttlMs: options.draftTtlMs,
    clock,
  });
  const reconciler = new Reconciler({
    store,
    catalog,
    projector,
    kv,
    logger,
    intervalMs: options.reconcileIntervalMs,
  });
  await reconciler.start();
  const draftSweeper = startDraftSweeper({
    store: draftStore,
    logger,
    retentionMs: options.draftRetentionMs ?? 86_400_000,
    intervalMs: options.draftSweepIntervalMs ?? 0,
    clock,
  });
  return {
    registry,
    drafts,
    reconciler,
    draftSweeper,
    projector,
    store,
    kv,
    roles,
    stop: async () => {
      await Promise.all([reconciler.stop(), draftSweeper.stop()]);
    },
  };
}
