import { buckets, cfg } from '@tollgate/kit';

/** The policy service's own settings, on top of the common ones. */
export const policyConfig = {
  approvalTtlMs: cfg.int(
    'TOLLGATE_APPROVAL_TTL_MS',
    'how long an approval can be decided when approval.requested names no expiry, ms',
    30 * 60_000,
    1_000,
    7 * 24 * 3_600_000,
  ),
  approvalSweepIntervalMs: cfg.int(
    'TOLLGATE_APPROVAL_SWEEP_INTERVAL_MS',
    'pause between passes that expire overdue approvals and re-announce decisions, ms',
    15_000,
    100,
    3_600_000,
  ),
  approvalsDurable: cfg.string(
    'TOLLGATE_POLICY_APPROVALS_DURABLE',
    'durable JetStream consumer of approval.requested, shared by all instances',
    'policy-approvals',
  ),
  approvalsReplayMs: cfg.int(
    'TOLLGATE_POLICY_APPROVALS_REPLAY_MS',
    'how far back a newly created approvals consumer reads approval.requested, ms (0 = from now)',
    24 * 3_600_000,
    0,
    30 * 24 * 3_600_000,
  ),
  bundleWindowMs: cfg.int(
    'TOLLGATE_POLICY_BUNDLE_WINDOW_MS',
    'at most one bundle rebuild per tenant per this window; further changes coalesce, ms',
    50,
    0,
    60_000,
  ),
  reconcileIntervalMs: cfg.int(
    'TOLLGATE_POLICY_RECONCILE_INTERVAL_MS',
    'pause between passes that republish every tenant bundle, ms (0 = only at start-up)',
    60_000,
    0,
    86_400_000,
  ),
  resourcesBucket: cfg.string(
    'TOLLGATE_POLICY_RESOURCES_BUCKET',
    'KV bucket the registry projects current resources into',
    buckets.resources,
  ),
  bundlesBucket: cfg.string(
    'TOLLGATE_POLICY_BUNDLES_BUCKET',
    'KV bucket compiled policy bundles are published to',
    buckets.policyBundles,
  ),
};
