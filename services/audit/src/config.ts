import { buckets, cfg } from '@tollgate/kit';

/** The audit service's own settings, on top of the common ones. */
export const auditConfig = {
  bundlesBucket: cfg.string(
    'TOLLGATE_AUDIT_BUNDLES_BUCKET',
    "KV bucket of the policy bundles callers' roles are read from",
    buckets.policyBundles,
  ),
  durable: cfg.string(
    'TOLLGATE_AUDIT_DURABLE',
    'durable consumer name on the events stream',
    'audit',
  ),
  batchSize: cfg.int(
    'TOLLGATE_AUDIT_BATCH_SIZE',
    'records written per insert at most',
    500,
    1,
    5000,
  ),
  batchLingerMs: cfg.int(
    'TOLLGATE_AUDIT_BATCH_LINGER_MS',
    'how long a partial batch waits for more events (ms)',
    20,
    0,
    5000,
  ),
  ackWaitMs: cfg.int(
    'TOLLGATE_AUDIT_ACK_WAIT_MS',
    'JetStream ack wait of the consumer (ms): events held by an instance that died are redelivered after it',
    10_000,
    1_000,
    3_600_000,
  ),
  maxAckPending: cfg.int(
    'TOLLGATE_AUDIT_MAX_ACK_PENDING',
    'events held unacknowledged at most',
    2_000,
    1,
    100_000,
  ),
  poisonDeliveries: cfg.int(
    'TOLLGATE_AUDIT_POISON_DELIVERIES',
    'deliveries after which an event is dead-lettered',
    10,
    2,
    1_000,
  ),
  maxArgumentBytes: cfg.int(
    'TOLLGATE_AUDIT_MAX_ARGUMENT_BYTES',
    'arguments larger than this (canonical JSON) are stored as a truncation marker',
    8_192,
    256,
    1_048_576,
  ),
};
