import type { MessageInitShape } from '@bufbuild/protobuf';
import type { StatsBucketSchema } from '@tollgate/contracts/audit/v1';
import { StatsGroup } from '@tollgate/contracts/audit/v1';
import { EventTypes } from '@tollgate/kit';
import { callOutcome } from '../outcome.js';
import type { CallOutcome } from '../outcome.js';

type BucketInit = MessageInitShape<typeof StatsBucketSchema>;

/** The facets of a call record statistics look at. */
export interface CallRow {
  type: string;
  occurred_at: Date;
  tool: string;
  agent: string;
  resource: string;
  status: string;
  decision: string;
  error_code: string;
  latency_ms: number;
  truncated: boolean;
}

/** Fields to read from stored records for statistics. */
export const CALL_ROW_FIELDS = [
  'type',
  'occurred_at',
  'tool',
  'agent',
  'resource',
  'status',
  'decision',
  'error_code',
  'latency_ms',
  'truncated',
] as const satisfies ReadonlyArray<keyof CallRow>;

/** How to group statistics. */
export interface Grouping {
  by: StatsGroup;
  /** For STATS_GROUP_WINDOW: window length and where windows start. */
  windowMs?: number;
  originMs?: number;
}

class Tally {
  calls = 0;
  ok = 0;
  errors = 0;
  denials = 0;
  pending = 0;
  argumentFailures = 0;
  idempotencyConflicts = 0;
  truncated = 0;
  readonly latencies: number[] = [];

  add(o: CallOutcome): void {
    this.calls++;
    if (o.ok) this.ok++;
    if (o.error) this.errors++;
    if (o.denied) this.denials++;
    if (o.pendingApproval) this.pending++;
    if (o.argumentFailure) this.argumentFailures++;
    if (o.idempotencyConflict) this.idempotencyConflicts++;
    if (o.truncated) this.truncated++;
    if (o.latencyMs !== undefined) this.latencies.push(o.latencyMs);
  }

  bucket(key: string): BucketInit {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const rate = (n: number) => (this.calls === 0 ? 0 : n / this.calls);
    return {
      key,
      calls: BigInt(this.calls),
      ok: BigInt(this.ok),
      errors: BigInt(this.errors),
      denials: BigInt(this.denials),
      pendingApprovals: BigInt(this.pending),
      argumentValidationFailures: BigInt(this.argumentFailures),
      idempotencyConflicts: BigInt(this.idempotencyConflicts),
      truncated: BigInt(this.truncated),
      p50LatencyMs: percentile(sorted, 50),
      p95LatencyMs: percentile(sorted, 95),
      p99LatencyMs: percentile(sorted, 99),
      successRate: rate(this.ok),
      denialRate: rate(this.denials),
      argumentValidationFailureRate: rate(this.argumentFailures),
      idempotencyConflictRate: rate(this.idempotencyConflicts),
      truncationRate: rate(this.truncated),
    };
  }
}

/** Nearest-rank percentile of ascending values (0 when there are none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

/** Accumulates call records into totals and groups. */
export class StatsAccumulator {
  readonly #grouping: Grouping;
  readonly #total = new Tally();
  readonly #groups = new Map<string, Tally>();

  constructor(grouping: Grouping) {
    this.#grouping = grouping;
  }

  add(row: CallRow): void {
    const outcome = callOutcome(row);
    this.#total.add(outcome);
    const key = this.#keyOf(row);
    if (key === undefined) return;
    let tally = this.#groups.get(key);
    if (!tally) this.#groups.set(key, (tally = new Tally()));
    tally.add(outcome);
  }

  /** Totals, and groups sorted by key (windows in time order). */
  result(): { total: BucketInit; groups: BucketInit[] } {
    const keys = [...this.#groups.keys()].sort();
    return {
      total: this.#total.bucket(''),
      groups: keys.map((key) => this.#groups.get(key)!.bucket(key)),
    };
  }

  #keyOf(row: CallRow): string | undefined {
    switch (this.#grouping.by) {
      case StatsGroup.TOOL:
        return row.tool;
      case StatsGroup.AGENT:
        return row.agent;
      case StatsGroup.RESOURCE:
        return row.resource;
      case StatsGroup.STATUS:
        return row.type === EventTypes.callDenied ? 'denied' : row.status || 'unspecified';
      case StatsGroup.WINDOW: {
        const size = this.#grouping.windowMs ?? 60_000;
        const origin = this.#grouping.originMs ?? 0;
        const start = origin + Math.floor((row.occurred_at.getTime() - origin) / size) * size;
        return new Date(start).toISOString();
      }
      default:
        return undefined;
    }
  }
}
