/**
 * How many copies JetStream keeps of each stream and KV bucket a service creates:
 * `TOLLGATE_NATS_REPLICAS` (1, 3 or 5; default 1, a single server). A cluster of 3 sets 3 (the
 * Helm chart and `deploy/local` cluster mode do). Existing streams and buckets keep theirs.
 */
export function storageReplicas(env: Record<string, string | undefined> = process.env): number {
  const raw = env['TOLLGATE_NATS_REPLICAS'];
  if (raw === undefined || raw === '') return 1;
  if (raw !== '1' && raw !== '3' && raw !== '5')
    throw new Error(`TOLLGATE_NATS_REPLICAS must be 1, 3 or 5 (got "${raw}")`);
  return Number(raw);
}
