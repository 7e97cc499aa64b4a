import type { NatsConnection } from '@nats-io/transport-node';
import type {
  ConnectorRegistry,
  CredentialNamespaces,
  CredentialResolver,
  EgressRules,
  TokenVerifier,
} from '@tollgate/core';
import { agentCompletionSubject } from '@tollgate/core';
import {
  EventPublisher,
  MemoryProjection,
  ResourceCatalog,
  encodeEnvelope,
  ensureEventStream,
} from '@tollgate/kit';
import type { AddressLookup, Logger } from '@tollgate/kit';
import { serveExecutor } from './api.js';
import { Executor } from './executor.js';
import type { ExecutorSettings } from './executor.js';
import { Authenticator } from './pipeline/authenticate.js';
import { PolicyDeciders } from './state/deciders.js';
import { IdempotencyStore } from './state/idempotency.js';
import { RateLimiter } from './state/rate-limits.js';
import { DEFAULT_BUCKETS, openExecutorBuckets } from './state/buckets.js';
import type { ExecutorBucketNames, ExecutorBuckets } from './state/buckets.js';
import { CallResults } from './state/call-results.js';
import { ParkedCalls } from './state/parked-calls.js';
import { announceWithdrawals } from './withdrawals.js';

/** What a running executor is started from. */
export interface StartExecutorOptions {
  nc: NatsConnection;
  logger: Logger;
  verifier: TokenVerifier;
  connectors: ConnectorRegistry;
  credentials: CredentialResolver;
  /** Which credential references each tenant's resources may name (`TOLLGATE_CREDENTIAL_NAMESPACES`). */
  credentialNamespaces: CredentialNamespaces;
  /** Which destinations each tenant's resources may connect to (`TOLLGATE_EGRESS_RULES`). */
  egressRules: EgressRules;
  /** How endpoint host names are resolved for that check (default: the system's resolver). */
  resolveHost?: AddressLookup;
  settings: ExecutorSettings;
  /** Durable consumer of `approval.decided` (default `executor-approvals`). */
  approvalsDurable?: string;
  /** Bucket names (tests isolate themselves with their own). */
  buckets?: Partial<ExecutorBucketNames>;
}

/** A started executor: the service logic, its buckets, and how to stop it. */
export interface RunningExecutor {
  executor: Executor;
  buckets: ExecutorBuckets;
  stop(): Promise<void>;
}

/**
 * Opens the buckets, loads resources, policy bundles and the memory bucket's saved queries and
 * preferred fields (and keeps following them), builds the
 * executor and serves it on NATS for every connector kind. Resolves once it is serving.
 */
export async function startExecutor(options: StartExecutorOptions): Promise<RunningExecutor> {
  const { nc, logger, settings } = options;
  await ensureEventStream(nc);
  const names = { ...DEFAULT_BUCKETS, ...options.buckets };
  const buckets = await openExecutorBuckets(nc, names, settings.approvalTtlMs);
  const resources = await ResourceCatalog.follow(buckets.resources, logger);
  const deciders = await PolicyDeciders.follow(buckets.policyBundles, logger);
  const memory = await MemoryProjection.follow(buckets.memory, logger);
  const events = new EventPublisher(nc);
  const stopAnnouncing = announceWithdrawals({
    connectors: options.connectors,
    resources,
    events,
    store: buckets.withdrawals,
    logger,
  });
  const executor = new Executor({
    authenticator: new Authenticator(options.verifier),
    resources,
    deciders,
    memory,
    connectors: options.connectors,
    credentials: options.credentials,
    credentialNamespaces: options.credentialNamespaces,
    egressRules: options.egressRules,
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    events,
    notify: (principal, event) =>
      nc.publish(agentCompletionSubject(principal), encodeEnvelope(event)),
    idempotency: new IdempotencyStore(buckets.idempotency),
    rateLimits: new RateLimiter(buckets.rateLimits),
    parked: new ParkedCalls(buckets.parkedCalls),
    results: new CallResults(buckets.callResults),
    logger,
    settings,
  });
  const api = await serveExecutor(nc, executor, {
    kinds: options.connectors.types(),
    logger,
    approvalsDurable: options.approvalsDurable ?? 'executor-approvals',
    approvalAckWaitMs: settings.maxCallTimeoutMs + 30_000,
  });
  return {
    executor,
    buckets,
    async stop() {
      await api.stop();
      await executor.settled();
      stopAnnouncing();
      resources.stop();
      deciders.stop();
      memory.stop();
    },
  };
}
