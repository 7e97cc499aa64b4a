import type { NatsConnection } from '@nats-io/transport-node';
import { buckets, openBucket } from '@tollgate/kit';
import type { KV } from '@tollgate/kit';

/** The KV buckets an executor reads and writes, by role. */
export interface ExecutorBucketNames {
  resources: string;
  policyBundles: string;
  idempotency: string;
  rateLimits: string;
  parkedCalls: string;
  callResults: string;
  /** The memory service's saved queries and preferred fields (read only). */
  memory: string;
  /** Operations withdrawn because the live system changed under their pin (written here). */
  withdrawals: string;
}

export type ExecutorBuckets = Record<keyof ExecutorBucketNames, KV>;

export const DEFAULT_BUCKETS: ExecutorBucketNames = {
  resources: buckets.resources,
  policyBundles: buckets.policyBundles,
  idempotency: buckets.idempotency,
  rateLimits: buckets.rateLimits,
  parkedCalls: buckets.parkedCalls,
  callResults: buckets.callResults,
  memory: buckets.memory,
  withdrawals: buckets.withdrawals,
};

const HOUR = 3_600_000;

/**
 * Opens (creating when missing) the executor's buckets: idempotency records live 25 h (at
 * least the promised 24 h after their last write), results 24 h, parked calls as long as an
 * approval may take plus an hour. Counters, projections and withdrawals do not expire (one
 * entry per withdrawn operation; a newer resource version supersedes it).
 */
export async function openExecutorBuckets(
  nc: NatsConnection,
  names: ExecutorBucketNames,
  approvalTtlMs: number,
): Promise<ExecutorBuckets> {
  const ttl: Partial<Record<keyof ExecutorBucketNames, number>> = {
    idempotency: 25 * HOUR,
    parkedCalls: approvalTtlMs + HOUR,
    callResults: 24 * HOUR,
  };
  const roles = Object.keys(names) as Array<keyof ExecutorBucketNames>;
  const opened = await Promise.all(
    roles.map((role) => {
      const lifetime = ttl[role];
      return openBucket(nc, names[role], lifetime === undefined ? {} : { ttl: lifetime });
    }),
  );
  return Object.fromEntries(roles.map((role, i) => [role, opened[i]])) as ExecutorBuckets;
}
