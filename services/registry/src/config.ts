import { cfg, credentialNamespacesConfig, egressRulesConfig } from '@tollgate/kit';

/** The registry's own settings, on top of the common ones. */
export const registryConfig = {
  draftTtlMs: cfg.int(
    'TOLLGATE_REGISTRY_DRAFT_TTL_MS',
    'how long a draft can be confirmed, ms',
    3_600_000,
    60_000,
    30 * 24 * 3_600_000,
  ),
  draftRetentionMs: cfg.int(
    'TOLLGATE_REGISTRY_DRAFT_RETENTION_MS',
    'how long past its expiry a draft is kept before the sweeper deletes it, ms',
    86_400_000,
    0,
    365 * 24 * 3_600_000,
  ),
  sweepIntervalMs: cfg.int(
    'TOLLGATE_REGISTRY_SWEEP_INTERVAL_MS',
    'pause between passes that delete drafts past their retention, ms (0 disables them)',
    600_000,
    0,
    86_400_000,
  ),
  reconcileIntervalMs: cfg.int(
    'TOLLGATE_REGISTRY_RECONCILE_INTERVAL_MS',
    'pause between passes that repair the KV projection, ms',
    60_000,
    1_000,
    86_400_000,
  ),
  credentialNamespaces: credentialNamespacesConfig,
  egressRules: egressRulesConfig,
};
