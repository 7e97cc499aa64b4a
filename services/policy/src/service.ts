import type { NatsConnection } from '@nats-io/transport-node';
import type { Db } from 'mongodb';
import {
  EventPublisher,
  ResourceCatalog,
  buckets,
  ensureEventStream,
  openBucket,
} from '@tollgate/kit';
import type { KV, Logger } from '@tollgate/kit';
import { Approvals } from './approvals/approvals.js';
import { ApprovalIntake } from './approvals/intake.js';
import { Bundles } from './bundles/bundles.js';
import { TenantCompiler } from './bundles/compile.js';
import { TenantDeciders } from './bundles/deciders.js';
import { BundlePublisher } from './bundles/publisher.js';
import { AccessControl } from './declarations/access.js';
import { Declarations } from './declarations/declarations.js';
import { Decisions } from './decisions.js';
import { ApprovalStore } from './store/approvals.js';
import { BundleLedger } from './store/bundle-ledger.js';
import { DeadLetters } from './store/dead-letters.js';
import { DeclarationStore } from './store/declarations.js';

export interface PolicyServiceOptions {
  db: Db;
  nc: NatsConnection;
  logger: Logger;
  /** Expiry of an approval whose request names none, ms. */
  approvalTtlMs: number;
  /** Pause between approval sweeps, ms (0 = none; `approvals.sweep()` by hand). */
  approvalSweepIntervalMs: number;
  approvalsDurable: string;
  /** How far back a newly created approvals consumer starts, ms (0 = from now). */
  approvalsReplayMs: number;
  bundleWindowMs: number;
  reconcileIntervalMs: number;
  /** KV bucket the registry projects resources into (default `tollgate_resources`). */
  resourcesBucket?: string;
  /** KV bucket bundles are published to (default `tollgate_policy_bundles`). */
  bundlesBucket?: string;
  clock?: () => Date;
}

/** The service's parts, wired and started. */
export interface PolicyParts {
  declarations: Declarations;
  decisions: Decisions;
  approvals: Approvals;
  bundles: Bundles;
  publisher: BundlePublisher;
  deciders: TenantDeciders;
  resources: ResourceCatalog;
  access: AccessControl;
  stores: {
    agents: DeclarationStore<'Agent'>;
    policies: DeclarationStore<'Policy'>;
    ledger: BundleLedger;
    approvals: ApprovalStore;
    deadLetters: DeadLetters;
  };
  bundlesKv: KV;
  resourcesKv: KV;
  stop(): Promise<void>;
}

/**
 * Builds the policy service from its dependencies and starts it: indexes, the event stream,
 * the resource mirror, the tenant deciders watching the bundle bucket, a first reconcile of
 * every tenant's bundle, the approval consumer and sweeper. Used by `main` and by tests.
 */
export async function startPolicyService(options: PolicyServiceOptions): Promise<PolicyParts> {
  const { db, nc, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const stores = {
    agents: new DeclarationStore(db, 'Agent'),
    policies: new DeclarationStore(db, 'Policy'),
    ledger: new BundleLedger(db),
    approvals: new ApprovalStore(db),
    deadLetters: new DeadLetters(db),
  };
  await Promise.all([
    stores.agents.ensureIndexes(),
    stores.policies.ensureIndexes(),
    stores.ledger.ensureIndexes(),
    stores.approvals.ensureIndexes(),
  ]);
  await ensureEventStream(nc);
  const events = new EventPublisher(nc);
  const resourcesKv = await openBucket(nc, options.resourcesBucket ?? buckets.resources);
  const bundlesKv = await openBucket(nc, options.bundlesBucket ?? buckets.policyBundles);
  const deciders = await TenantDeciders.start(bundlesKv, logger, () => clock().getTime());

  // Resource changes rebuild bundles; the catalog exists before the bundles it feeds.
  const resourceChanged: { to?: (tenant: string) => void } = {};
  const resources = await ResourceCatalog.follow(resourcesKv, logger, {
    validate: false,
    onChange: (tenant) => resourceChanged.to?.(tenant),
  });
  const compiler = new TenantCompiler();
  const publisher = new BundlePublisher({
    ...stores,
    resources,
    compiler,
    kv: bundlesKv,
    events,
    deciders,
    logger,
    clock,
  });
  const bundles = new Bundles({
    publisher,
    logger,
    windowMs: options.bundleWindowMs,
    reconcileIntervalMs: options.reconcileIntervalMs,
    tenants: async () => {
      const lists = await Promise.all([
        stores.agents.tenants(),
        stores.policies.tenants(),
        stores.ledger.tenants(),
      ]);
      return [...new Set([...lists.flat(), ...resources.tenants()])].sort();
    },
  });
  resourceChanged.to = (tenant) => bundles.rebuild(tenant);
  bundles.start();

  const access = new AccessControl(stores.agents);
  const approvals = new Approvals({ store: stores.approvals, access, events, logger, clock });
  const intake = new ApprovalIntake({
    nc,
    durable: options.approvalsDurable,
    approvals,
    deadLetters: stores.deadLetters,
    logger,
    defaultTtlMs: options.approvalTtlMs,
    replayMs: options.approvalsReplayMs,
  });
  await intake.start();
  const sweeper = startSweeper(approvals, options.approvalSweepIntervalMs, logger);

  return {
    declarations: new Declarations({ ...stores, access, bundles, resources, compiler, clock }),
    decisions: new Decisions({ deciders, access }),
    approvals,
    bundles,
    publisher,
    deciders,
    resources,
    access,
    stores,
    bundlesKv,
    resourcesKv,
    async stop() {
      sweeper.stop();
      await intake.stop();
      await bundles.stop();
      resources.stop();
      deciders.stop();
    },
  };
}

function startSweeper(approvals: Approvals, intervalMs: number, logger: Logger): { stop(): void } {
  if (intervalMs <= 0) return { stop() {} };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    approvals
      .sweep()
      .catch((err: unknown) =>
        logger.warn({ err: { message: (err as Error).message } }, 'approval sweep failed'),
      )
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
