import { cfg, credentialNamespacesConfig, egressRulesConfig } from '@tollgate/kit';

/** The executor's own settings, on top of the common ones. */
export const executorConfig = {
  cursorKey: cfg.secret(
    'TOLLGATE_CURSOR_KEY',
    'key sealing pagination cursors; give every executor instance the same one (empty: a random key per process)',
    '',
  ),
  defaultCallTimeoutMs: cfg.int(
    'TOLLGATE_EXECUTOR_CALL_TIMEOUT_MS',
    'budget of a call that names none, ms',
    30_000,
    100,
    600_000,
  ),
  maxCallTimeoutMs: cfg.int(
    'TOLLGATE_EXECUTOR_MAX_CALL_TIMEOUT_MS',
    'largest budget a call may ask for, ms',
    120_000,
    100,
    3_600_000,
  ),
  staleMarginMs: cfg.int(
    'TOLLGATE_EXECUTOR_STALE_MARGIN_MS',
    'how long past its deadline a call whose executor vanished (an accepted call, a claimed approval) is settled with its outcome unknown, ms',
    60_000,
    1_000,
    3_600_000,
  ),
  acceptAfterMs: cfg.int(
    'TOLLGATE_EXECUTOR_ACCEPT_AFTER_MS',
    'answer `accepted` when a call still runs after this long and finish it with an event, ms (0: never)',
    10_000,
    0,
    3_600_000,
  ),
  maxResultBytes: cfg.int(
    'TOLLGATE_EXECUTOR_MAX_RESULT_BYTES',
    'byte cap on the data sent back to an agent',
    32_768,
    1_024,
    4_194_304,
  ),
  approvalTtlMs: cfg.int(
    'TOLLGATE_EXECUTOR_APPROVAL_TTL_MS',
    'how long a parked call waits for a decision, ms',
    86_400_000,
    60_000,
    30 * 86_400_000,
  ),
  approvalsDurable: cfg.string(
    'TOLLGATE_EXECUTOR_APPROVALS_DURABLE',
    'durable consumer of approval.decided shared by all executor instances',
    'executor-approvals',
  ),
  credentialNamespaces: credentialNamespacesConfig,
  egressRules: egressRulesConfig,
};
